import { dynamodbEndpoint } from '../support/dynamodb-lease';
import { fetchFromRuntime } from '../support/request';
import { readFileSync } from 'node:fs';
import { findSourceMap } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { esbuildBuildOptions } from '../../infra/bundling';
import { buildFunctionBundles, stackFunctions } from '../../local/bundle-build';
import { handlerFile, importedHandlerFiles, loadHandler, repositoryRoot, useBundledHandlers } from '../../local/handler-loader';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';
import { tempDirs } from '../support/temp-dirs';

// The prefix matches the folders vitest.config.ts leaves to Node's own loader.
const tempDir = tempDirs();
const bundleDir = () => tempDir('sim-service-bundles-test-');

afterEach(() => useBundledHandlers(undefined));

const probe = 'test/local/fixtures/bundle-probe-handler.ts';
// What Node 24 itself puts on import.meta (vitest's module transform gives other keys).
const nodeImportMeta = ['dirname', 'filename', 'main', 'resolve', 'url'];

describe('bundled handlers', () => {
  it('loads a handler from its bundle, natively and with stack traces through the source map', async () => {
    const dir = bundleDir();
    const bundles = await buildFunctionBundles({ dir, functions: [{ name: 'probe', handler: probe }] });
    expect(bundles).toEqual({ dir, files: { [probe]: join(dir, 'probe', 'index.mjs') }, buildMs: expect.any(Number) });

    const sourceMaps = process.sourceMapsEnabled;
    process.setSourceMapsEnabled(true);
    try {
      useBundledHandlers(bundles.files);
      expect(handlerFile(probe)).toBe(join(dir, 'probe', 'index.mjs'));
      const result = (await (await loadHandler(probe))({}, {} as never)) as { file: string; importMeta: string[]; stack: string };
      expect({ file: result.file, importMeta: result.importMeta }).toEqual({ file: join(dir, 'probe', 'index.mjs'), importMeta: nodeImportMeta });
      // Node read the bundle's source map, so with source maps enabled (npm start --bundled) the
      // bundle's frames point at the TypeScript source. vitest's own stack formatting ignores
      // Node's maps, so the frame is mapped here by hand.
      const frame = /index\.mjs:(\d+):(\d+)\)$/.exec(result.stack.split('\n')[1]!)!;
      const entry = findSourceMap(join(dir, 'probe', 'index.mjs'))?.findEntry(Number(frame[1]) - 1, Number(frame[2]) - 1);
      const mapped: { source: string; line: number } | undefined =
        entry && 'originalSource' in entry ? { source: entry.originalSource.replace(/^.*?(?=test\/)/, ''), line: entry.originalLine + 1 } : undefined;
      expect(mapped).toEqual({ source: probe, line: 11 });
      expect(importedHandlerFiles()).toContain(join(dir, 'probe', 'index.mjs'));
    } finally {
      process.setSourceMapsEnabled(sourceMaps);
    }

    // The same module from its source once bundled handlers are off again.
    useBundledHandlers(undefined);
    const fromSource = (await (await loadHandler(probe))({}, {} as never)) as { file: string };
    expect(fromSource.file).toBe(join(repositoryRoot, probe));
  });

  it('refuses a module without a bundle rather than running its source', async () => {
    useBundledHandlers({ [probe]: join(bundleDir(), 'probe', 'index.mjs') });
    await expect(loadHandler('test/local/fixtures/echo-handler.ts')).rejects.toThrow(
      'test/local/fixtures/echo-handler.ts has no bundle: only the functions of the stack run bundled',
    );
  });

  it('refuses a function name that is not kebab-case, and a name twice', async () => {
    await expect(buildFunctionBundles({ dir: bundleDir(), functions: [{ name: '../escape', handler: probe }] })).rejects.toThrow(
      'cannot bundle "../escape": a function name is kebab-case',
    );
    await expect(
      buildFunctionBundles({ dir: bundleDir(), functions: [{ name: 'probe', handler: probe }, { name: 'probe', handler: probe }] }),
    ).rejects.toThrow('cannot bundle probe twice');
  });

  it('reports a function that does not bundle', async () => {
    await expect(
      buildFunctionBundles({ dir: bundleDir(), functions: [{ name: 'missing', handler: 'functions/no-such-handler.ts' }] }),
    ).rejects.toThrow(/^bundling the functions failed: Build failed with 1 error/);
  });

  it('builds every function of the stack byte for byte as one esbuild run per function (the stack) does', async () => {
    const dir = bundleDir();
    const bundles = await buildFunctionBundles({ dir });
    const functions = stackFunctions();
    expect(Object.keys(bundles.files).sort()).toEqual(functions.map((fn) => fn.handler).sort());
    expect(functions).toHaveLength(30);
    const singles = await Promise.all(
      functions.map(({ name, handler }) => build({ ...esbuildBuildOptions(join(repositoryRoot, handler), join(dir, name, 'index.mjs')), write: false })),
    );
    functions.forEach(({ name, handler }, index) => {
      const outfile = join(dir, name, 'index.mjs');
      expect(bundles.files[handler]).toBe(outfile);
      const expected = new Map(singles[index]!.outputFiles.map((output) => [output.path, Buffer.from(output.contents)]));
      expect([...expected.keys()].sort()).toEqual([outfile, `${outfile}.map`]);
      for (const [path, contents] of expected) expect(readFileSync(path).equals(contents), `${path} differs`).toBe(true);
    });
  }, 180_000);
});

describe('startLocalRuntime({ bundled: true })', () => {
  let runtime: LocalRuntime | undefined;
  afterAll(async () => {
    await runtime?.stop();
  });

  it('builds the bundles, serves requests from them and goes back to the sources on stop', async () => {
    runtime = await startLocalRuntime({
      dynamodbEndpoint: dynamodbEndpoint(),
      sqsEndpoint: inject('sqsEndpoint'),
      bundled: true,
      quiet: true,
    });
    const fallback = runtime.bundles!.files['functions/default-fallback.ts']!;
    expect(fallback).toBe(join(runtime.bundles!.dir, 'default-fallback', 'index.mjs'));
    const response = await fetchFromRuntime(`${runtime.baseUrl}/no-such-path`);
    expect({ status: response.status, type: response.headers.get('content-type'), body: await response.json() }).toEqual({
      status: 404,
      type: 'application/json',
      body: { detail: 'Not found.', code: 'not_found' },
    });
    expect(importedHandlerFiles()).toContain(fallback);
    expect(importedHandlerFiles().filter((file) => file.startsWith(join(repositoryRoot, 'functions')))).toEqual([]);
    expect(process.sourceMapsEnabled).toBe(true);

    await runtime.stop();
    runtime = undefined;
    expect(handlerFile('functions/default-fallback.ts')).toBe(join(repositoryRoot, 'functions/default-fallback.ts'));
  });
});
