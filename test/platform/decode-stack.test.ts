import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { ServiceFunction, type ServiceResources } from '../../infra/constructs/service-function';
import { buildFunctionBundles, stackFunctions } from '../../local/bundle-build';
import { repositoryRoot } from '../../local/handler-loader';
import { decodeStackTrace, repositoryPath } from '../../scripts/decode-stack';
import { tempDirs } from '../support/temp-dirs';

const tempDir = tempDirs();

/**
 * Imports a bundle in a fresh node process with a function's environment as far as source
 * maps go (no NODE_OPTIONS), invokes its handler with `event` and returns what it printed:
 * the stack of what the handler threw, and the process's stderr (the functions' log lines).
 */
const invokeBundle = (file: string, event: unknown): { thrown: string; stderr: string } => {
  const script =
    'const m = await import(process.argv[1]);' +
    'try { await m.handler(JSON.parse(process.argv[2]), {}); } catch (error) { process.stdout.write(error.stack); }';
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script, pathToFileURL(file).href, JSON.stringify(event)], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', AWS_REGION: 'eu-west-2' },
  });
  return { thrown: result.stdout, stderr: result.stderr };
};

/** `npm run decode-stack -- <target>` with `input` on stdin: its stdout. */
const decodeCli = (target: string, input: string): string => {
  const result = spawnSync('npm', ['run', '--silent', 'decode-stack', '--', target], { cwd: repositoryRoot, input, encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
};

const bundleFrame = /\(file:\/\/[^)]*\/index\.mjs:\d+:\d+\)/;

describe('stack traces of deployed functions, decoded afterwards with the source map', () => {
  it('deploys index.mjs.map beside index.mjs, and decodes a thrown error of that very asset', () => {
    // The asset exactly as `cdk deploy` uploads it: NodejsFunction's own bundling of a ServiceFunction.
    const outdir = tempDir('sim-service-cdk-');
    const app = new App({ outdir });
    const fn = new ServiceFunction(new Stack(app, 'Probe'), 'Probe', {
      name: 'probe',
      projectRoot: repositoryRoot,
      handler: 'test/local/fixtures/throwing-handler.ts',
      access: { table: 'none' },
      timeoutSeconds: 3,
      memoryMb: 128,
      description: 'throws',
      resources: { queues: new Map() } as unknown as ServiceResources,
      production: false,
    });
    app.synth();
    const [asset] = readdirSync(outdir).filter((name) => name.startsWith('asset.'));
    expect(readdirSync(join(outdir, asset!)).sort()).toEqual(['index.mjs', 'index.mjs.map']);
    expect(Stack.of(fn).resolve((fn.function.node.defaultChild as { environment?: unknown }).environment)).toBeUndefined();

    const { thrown } = invokeBundle(join(outdir, asset!, 'index.mjs'), {});
    const lines = thrown.split('\n');
    expect(lines[0]).toBe('Error: boom (expected by the test)');
    expect(lines[1]).toMatch(bundleFrame);
    const expected = [lines[0], lines[1]!.replace(bundleFrame, '(test/local/fixtures/throwing-handler.ts:5:9)'), ...lines.slice(2)].join('\n');

    const map = JSON.parse(readFileSync(join(outdir, asset!, 'index.mjs.map'), 'utf8'));
    expect(decodeStackTrace(thrown, map)).toBe(expected);
    // The same through the npm script, given the map file or the asset folder.
    expect(decodeCli(join(outdir, asset!, 'index.mjs.map'), thrown)).toBe(expected);
    expect(decodeCli(join(outdir, asset!), thrown)).toBe(expected);

    // A CloudWatch JSON log line (the Lambda runtime's own error record) stays valid JSON.
    const record = { level: 'ERROR', errorType: 'Error', errorMessage: 'boom (expected by the test)', stackTrace: lines };
    expect(JSON.parse(decodeStackTrace(JSON.stringify(record), map))).toEqual({ ...record, stackTrace: expected.split('\n') });
  });

  it('decodes a function of the stack by name, bundling it now: the log line of an unhandled error in default-fallback', async () => {
    const dir = tempDir('sim-service-bundles-decode-test-');
    const fallback = stackFunctions().find((fn) => fn.name === 'default-fallback')!;
    const bundles = await buildFunctionBundles({ dir, functions: [fallback] });
    // A null event: the route's envelope logs the TypeError (500 internal_error) as one JSON line.
    const { stderr } = invokeBundle(bundles.files[fallback.handler]!, null);
    const logged = stderr.split('\n').find((line) => line.includes('"unhandled error"'))!;
    const record = JSON.parse(logged) as { error: { stack: string } };
    const frames = record.error.stack.split('\n').slice(1);
    const inBundle = frames.filter((frame) => /file:\/\/\S*\/index\.mjs:\d+:\d+\)?$/.test(frame));
    expect(inBundle.length).toBeGreaterThan(2);

    const decoded = JSON.parse(decodeCli('default-fallback', `${logged}\n`)) as { error: { stack: string } };
    expect({ ...decoded, error: { ...decoded.error, stack: undefined } }).toEqual({ ...record, error: { ...record.error, stack: undefined } });
    const decodedFrames = decoded.error.stack.split('\n').slice(1);
    // Frames outside the bundle are left alone; each bundle frame now names a file of the
    // repository (TypeScript, or a package under node_modules) at a line that exists, and the
    // first one is where `path` was read from the null event.
    const outside = (list: string[]) => list.map((frame, index) => (inBundle.includes(frames[index]!) ? 'bundle frame' : frame));
    expect(outside(decodedFrames)).toEqual(outside(frames));
    const positions = decodedFrames.flatMap((frame) => [...frame.matchAll(/(?:\(|at )((?:node_modules|[\w-]+)\/[\w./@-]+\.(?:ts|js)):(\d+):(\d+)\)?$/g)]);
    expect(positions.length).toBe(inBundle.length);
    expect(decodedFrames.length).toBe(frames.length);
    for (const [, file, line] of positions) {
      expect(readFileSync(join(repositoryRoot, file!), 'utf8').split('\n').length, file).toBeGreaterThanOrEqual(Number(line));
    }
    const [, firstFile, firstLine] = positions[0]!;
    expect(firstFile).toMatch(/\.ts$/);
    expect(readFileSync(join(repositoryRoot, firstFile!), 'utf8').split('\n')[Number(firstLine) - 1]).toContain('path');
  });

  it('shows sources from their last node_modules/ or their first top-level folder of the repository', () => {
    const folders = new Set(['shared', 'functions', 'test']);
    expect(repositoryPath('../../work/repo/shared/http/route.ts', folders)).toBe('shared/http/route.ts');
    expect(repositoryPath('../../work/repo/node_modules/@middy/core/index.js', folders)).toBe('node_modules/@middy/core/index.js');
    expect(repositoryPath('../../../asset-input/functions/get-sim.ts', folders)).toBe('functions/get-sim.ts');
    expect(repositoryPath('../../elsewhere/x.ts', folders)).toBe('elsewhere/x.ts');
  });
});
