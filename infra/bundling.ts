/**
 * How every Lambda function of the stack is bundled, as plain data (no aws-cdk-lib import),
 * so that the stack (infra/constructs/service-function.ts) and the benchmark (bench/) build
 * byte-identical bundles: the benchmark calls esbuild with `esbuildBuildOptions`, which are
 * the very flags NodejsFunction's local bundling passes to the esbuild CLI for these settings.
 */
import { join } from 'node:path';
import type { BuildOptions } from 'esbuild';

/** The NodejsFunction bundling settings of every function (aws-lambda-nodejs BundlingOptions, enums as strings). */
export interface FunctionBundling {
  format: 'esm' | 'cjs';
  target: string;
  minify: boolean;
  sourceMap: boolean;
  sourcesContent: boolean;
  externalModules: string[];
  mainFields: string[];
  banner: string;
  logLevel: 'verbose' | 'debug' | 'info' | 'warning' | 'error' | 'silent';
}

/**
 * One ESM file with the AWS SDK v3 bundled and tree-shaken (no reliance on the SDK copy of
 * the Lambda runtime), a `require` for the CJS dependencies that esbuild keeps as require
 * calls, and a source map for stack traces. `node24`: what Lambda runs (Runtime.NODEJS_24_X)
 * and what every local script runs (the `node` package pinned in package.json), so esbuild
 * lowers no syntax that both can run as written.
 */
export const functionBundling: FunctionBundling = {
  format: 'esm',
  target: 'node24',
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  externalModules: [],
  mainFields: ['module', 'main'],
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  logLevel: 'warning',
};

/**
 * The esbuild build() options equivalent to NodejsFunction's local bundling command for
 * `functionBundling`: `esbuild --bundle <entry> --target --platform=node --format
 * --outfile=<dir>/index.mjs --minify --sourcemap --sources-content=false --external:...
 * --log-level --banner:js --main-fields`. `outfile` should end in `index.mjs` (ESM) as CDK's does.
 */
export const esbuildBuildOptions = (entry: string, outfile: string, bundling: FunctionBundling = functionBundling): BuildOptions => ({
  entryPoints: [entry],
  bundle: true,
  outfile,
  target: bundling.target,
  platform: 'node',
  format: bundling.format,
  minify: bundling.minify,
  sourcemap: bundling.sourceMap,
  ...(bundling.sourcesContent ? {} : { sourcesContent: false }),
  external: bundling.externalModules,
  logLevel: bundling.logLevel,
  banner: { js: bundling.banner },
  mainFields: bundling.mainFields,
});

/** One function of a multi-entry build: `<outdir>/<name>/index.mjs` is built from `entry`. */
export interface BundleEntry {
  name: string;
  /** Absolute path of the handler module. */
  entry: string;
}

/**
 * `esbuildBuildOptions` for several functions in one esbuild run (the local runtime's
 * `--bundled`, local/bundle-build.ts): each entry is written to `<outdir>/<name>/index.mjs`
 * (`index.js` for CJS). Without code splitting every output is a bundle of its own, byte for
 * byte the one `esbuildBuildOptions` makes for that entry (test/local/bundle-build.test.ts
 * compares them all); one run parses the modules the functions share (the AWS SDK) once,
 * which makes the 13 functions about 2.5 times faster to build than 13 separate runs.
 */
export const esbuildMultiBuildOptions = (entries: BundleEntry[], outdir: string, bundling: FunctionBundling = functionBundling): BuildOptions => {
  const { outfile: _single, entryPoints: _one, ...shared } = esbuildBuildOptions('', join(outdir, 'index.mjs'), bundling);
  return {
    ...shared,
    entryPoints: entries.map(({ name, entry }) => ({ in: entry, out: `${name}/index` })),
    outdir,
    outExtension: { '.js': bundling.format === 'esm' ? '.mjs' : '.js' },
  };
};
