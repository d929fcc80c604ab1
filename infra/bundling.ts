/**
 * How every Lambda function of the stack is bundled, as plain data (no aws-cdk-lib import),
 * so that the stack (infra/constructs/service-function.ts) and the benchmark (bench/) build
 * byte-identical bundles: the benchmark calls esbuild with `esbuildBuildOptions`, which are
 * the very flags NodejsFunction's local bundling passes to the esbuild CLI for these settings.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
  /** Identifiers esbuild replaces with the given JavaScript (`--define`); see `sideModules`. */
  define: Record<string, string>;
  /**
   * Packages esbuild replaces with a module of the repository (`--alias:<package>=<path>`),
   * the path relative to the project root, which is esbuild's working directory in the stack
   * (NodejsFunction runs it there) and in `esbuildBuildOptions` (`absWorkingDir`); see
   * `credentialProviderAlias`.
   */
  alias: Record<string, string>;
}

/**
 * A module bundled into a file of its own beside a function's index.mjs, for code that only
 * some invocations run: Node parses index.mjs at every cold start, the side file only when
 * the code imports it. NodejsFunction writes one file (`--outfile`: no code splitting), so the
 * stack builds the side file in `commandHooks.afterBundling` (`sideModuleCommand`), the local
 * runtime and the benchmark with `esbuildBuildOptions` (`sideModuleBuildOptions`). The
 * importing module reads `define` (a global constant, undeclared under tsx and vitest): with
 * it, it imports `./<file>` relative to the bundle, and esbuild drops the static import of the
 * source that the other branch holds; without it (the sources), it imports the source.
 */
export interface SideModule {
  /** File name beside index.mjs (its source map beside it too). */
  file: string;
  /** Source module relative to the repository root. */
  entry: string;
  /** The constant the importing module reads: `functionBundling.define` sets it to `"./<file>"`. */
  define: string;
  /** Handler modules (as in the route and queue tables) whose asset holds the side file. */
  handlers: string[];
}

/**
 * pdf-lib and its fonts (about 350 KiB of fulfil-order's 910 KiB) serve IoT invoices only:
 * shared/invoices/render-invoice.ts imports them from invoice-pdf.mjs. The SNS client (about
 * 21 KiB) serves the operations notifications of physical orders and reviews only:
 * shared/adapters/notifications/sns-notifier.ts imports it from sns-publish.mjs (issue #11).
 */
export const sideModules: SideModule[] = [
  { file: 'invoice-pdf.mjs', entry: 'shared/invoices/invoice-pdf.ts', define: 'INVOICE_PDF_FILE', handlers: ['functions/fulfil-order.ts'] },
  { file: 'sns-publish.mjs', entry: 'shared/adapters/notifications/sns-publish.ts', define: 'SNS_PUBLISH_FILE', handlers: ['functions/fulfil-order.ts'] },
];

/**
 * The repository root: esbuild's working directory, against which the `alias` paths resolve
 * (NodejsFunction runs esbuild in the project root, which is this folder).
 */
export const esbuildWorkingDir = fileURLToPath(new URL('..', import.meta.url));

/**
 * The SDK's default credential chain (`@aws-sdk/credential-provider-node`, which every SDK
 * client's Node runtime config imports whatever `credentials` it is given) replaced by its
 * environment link alone (shared/adapters/aws/environment-credentials.ts): Lambda hands a
 * function its credentials in AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN,
 * so the profile, SSO, web identity, process and metadata links and the STS/SSO clients they
 * bring (@aws-sdk/nested-clients) never run there. About 100 KiB less in every bundle with an
 * SDK client (docs/benchmarks.md); docs/deploy.md, "Credentials inside the bundles", says what
 * a bundle can no longer do (a profile or an SSO login). The sources keep the full chain.
 */
export const credentialProviderAlias: Record<string, string> = {
  '@aws-sdk/credential-provider-node': './shared/adapters/aws/environment-credentials.ts',
};

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
  // Every side module's constant, for all functions alike (one esbuild run builds them all);
  // only the module that reads it changes.
  define: Object.fromEntries(sideModules.map((side) => [side.define, JSON.stringify(`./${side.file}`)])),
  alias: credentialProviderAlias,
};

/** `alias` as esbuild CLI flags (`--alias:<package>=<path>`), as NodejsFunction's `esbuildArgs` passes them. */
export const aliasFlags = (bundling: FunctionBundling = functionBundling): string[] =>
  Object.entries(bundling.alias).map(([name, path]) => `--alias:${name}=${path}`);

/** The side modules of a function, by its handler module. */
export const sideModulesOf = (handler: string): SideModule[] => sideModules.filter((side) => side.handlers.includes(handler));

/**
 * The esbuild build() options equivalent to NodejsFunction's local bundling command for
 * `functionBundling`: `esbuild --bundle <entry> --target --platform=node --format
 * --outfile=<dir>/index.mjs --minify --sourcemap --sources-content=false --external:...
 * --log-level --banner:js --main-fields --define:... --alias:...` run in the project root
 * (`absWorkingDir`, where the alias paths resolve). `outfile` should end in `index.mjs` (ESM) as CDK's does.
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
  ...(Object.keys(bundling.define).length > 0 ? { define: bundling.define } : {}),
  ...(Object.keys(bundling.alias).length > 0 ? { alias: bundling.alias, absWorkingDir: esbuildWorkingDir } : {}),
});

/** esbuild build() options of a side module: `<dir>/<file>` with the functions' settings. */
export const sideModuleBuildOptions = (root: string, side: SideModule, dir: string, bundling: FunctionBundling = functionBundling): BuildOptions =>
  esbuildBuildOptions(join(root, side.entry), join(dir, side.file), bundling);

/** Quotes a word for bash (commandHooks run in a shell). */
const shellWord = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * The shell command that builds a side module into a NodejsFunction asset
 * (`commandHooks.afterBundling(inputDir, outputDir)`): the project's esbuild CLI
 * (node_modules/.bin/esbuild, the one NodejsFunction's local bundling runs: esbuild is a
 * devDependency, so the stack never bundles in Docker) with the flags `esbuildBuildOptions`
 * mirrors. The hook runs in the project root, where the `--alias` paths resolve.
 */
export const sideModuleCommand = (side: SideModule, inputDir: string, outputDir: string, bundling: FunctionBundling = functionBundling): string =>
  [
    `${inputDir}/node_modules/.bin/esbuild`, '--bundle', `${inputDir}/${side.entry}`, `--target=${bundling.target}`, '--platform=node',
    `--format=${bundling.format}`, `--outfile=${outputDir}/${side.file}`, ...(bundling.minify ? ['--minify'] : []),
    ...(bundling.sourceMap ? ['--sourcemap'] : []), ...(bundling.sourcesContent ? [] : ['--sources-content=false']),
    ...bundling.externalModules.map((name) => `--external:${name}`), `--log-level=${bundling.logLevel}`, `--banner:js=${bundling.banner}`,
    `--main-fields=${bundling.mainFields.join(',')}`, ...aliasFlags(bundling),
  ]
    .map(shellWord)
    .join(' ');

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
