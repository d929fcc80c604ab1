/**
 * `npm run decode-stack -- <function | index.mjs.map> < trace.txt`: turns the bundle positions
 * of a stack trace logged by a deployed function (`file:///var/task/index.mjs:1:23456`) into
 * TypeScript source positions (`shared/http/route.ts:40:11`), with the function's source map.
 *
 * The functions run without `--enable-source-maps` (it makes Node scan the whole bundle at
 * import, about a fifth of the load time), so their traces point into the minified bundle;
 * the map (`index.mjs.map`, beside `index.mjs` in the deployed asset) decodes them afterwards.
 * Give either the map file (or the folder holding it), for example the one from the deployed
 * code (docs/deploy.md), or a function name of the route or queue table: its bundle is then
 * built now with the stack's own esbuild options (local/bundle-build.ts), which gives the
 * deployed map byte for byte when the working tree is the deployed commit.
 *
 * Every line is kept as it is except the bundle positions in it, so CloudWatch's JSON lines
 * (`"stackTrace":[...]`, or a `stack` field with `\n` escapes) stay valid JSON.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFunctionBundles, stackFunctions } from '../local/bundle-build';
import { repositoryRoot } from '../local/handler-loader';

/** A bundle position in a frame: an optional `file://`, any path, `index.mjs` (or `.js`), line and column (1-based). */
const bundlePosition = /(?:file:\/\/)?[^\s()"'\\]*?index\.m?js:(\d+):(\d+)/g;

/** The repository's top-level folders: a source path is shown from the first of them it contains. */
const topFolders = (): Set<string> =>
  new Set(readdirSync(repositoryRoot, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name));

/**
 * A source of the map as a repository-relative path: esbuild writes sources relative to the
 * bundle's folder (`../../work/repo/shared/x.ts`, wherever it was built), so the path is
 * shown from its last `node_modules/` or from its first folder that is a top-level folder of
 * the repository.
 */
export const repositoryPath = (source: string, folders: Set<string> = topFolders()): string => {
  const path = source.replace(/^(?:[a-z]+:\/\/)?/, '').replace(/\\/g, '/');
  const modules = path.lastIndexOf('node_modules/');
  if (modules !== -1) return path.slice(modules);
  const parts = path.split('/');
  const top = parts.findIndex((part) => folders.has(part));
  return top === -1 ? parts.filter((part) => part !== '..' && part !== '.').join('/') : parts.slice(top).join('/');
};

/**
 * `text` with every bundle position replaced by `<source>:<line>:<column>` (1-based, as in a
 * stack trace); a position the map does not cover is left as it is.
 */
export const decodeStackTrace = (text: string, payload: SourceMapPayload): string => {
  const map = new SourceMap(payload);
  const folders = topFolders();
  return text.replace(bundlePosition, (found, line: string, column: string) => {
    const entry = map.findEntry(Number(line) - 1, Number(column) - 1);
    if (!('originalSource' in entry)) return found;
    return `${repositoryPath(entry.originalSource, folders)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
};

/** The source map for `target`: a map file, a folder holding index.mjs.map, or a function of the stack (bundled now). */
export const loadSourceMap = async (target: string): Promise<SourceMapPayload> => {
  if (existsSync(target)) {
    const file = statSync(target).isDirectory() ? join(target, 'index.mjs.map') : target;
    return JSON.parse(readFileSync(file, 'utf8')) as SourceMapPayload;
  }
  const fn = stackFunctions().find(({ name }) => name === target);
  if (!fn) {
    throw new Error(
      `${target} is neither a source map file nor a function of the stack (${stackFunctions()
        .map(({ name }) => name)
        .join(', ')})`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'sim-service-bundles-decode-'));
  try {
    await buildFunctionBundles({ dir, functions: [fn] });
    return JSON.parse(readFileSync(join(dir, fn.name, 'index.mjs.map'), 'utf8')) as SourceMapPayload;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const main = async (): Promise<void> => {
  const [target] = process.argv.slice(2);
  if (!target) {
    process.stderr.write('usage: npm run decode-stack -- <function | path/to/index.mjs.map> < trace.txt\n');
    process.exit(2);
  }
  const payload = await loadSourceMap(target);
  process.stdout.write(decodeStackTrace(readFileSync(0, 'utf8'), payload));
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`decode-stack: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
