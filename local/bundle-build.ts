/**
 * The functions as the stack deploys them: every route (fallbacks included) and every queue
 * consumer bundled with esbuild using the stack's own settings (infra/bundling.ts), for the
 * local runtime's `--bundled` mode (`startLocalRuntime({ bundled: true })`) and the bundled
 * test run (test/support/global-setup.ts).
 *
 * A function with side modules (infra/bundling.ts `sideModules`) also gets each of them as
 * a file beside its index.mjs, as in its CDK asset.
 *
 * The bundles go to a folder under the OS temporary directory, outside the repository: like
 * /var/task in Lambda it has no node_modules above it, so a `require` or `import` that
 * esbuild left in a bundle fails here as it would there instead of finding the repository's
 * node_modules.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { esbuildMultiBuildOptions, functionBundling, sideModuleBuildOptions, sideModulesOf } from '../infra/bundling';
import { allRoutes } from '../shared/topology/routes';
import { queueDefinitions } from '../shared/topology/queues';
import { streamConsumers } from '../shared/topology/streams';
import { schedules } from '../shared/topology/schedules';
import { topicConsumers } from '../shared/topology/topics';
import { repositoryRoot } from './handler-loader';

/** One function to bundle: its name (the bundle's folder) and handler module relative to the repository root. */
export interface BundleTarget {
  name: string;
  handler: string;
}

/** Built bundles, as handed to `useBundledHandlers` (serialisable: the test setup passes it to test files). */
export interface FunctionBundles {
  /** The folder holding `<name>/index.mjs` and its source map `<name>/index.mjs.map` per function. */
  dir: string;
  /** Handler module as in the route table (e.g. `functions/list-sims.ts`) → absolute path of its index.mjs. */
  files: Record<string, string>;
  /** Wall time of the build in milliseconds. */
  buildMs: number;
}

/** Every function of the stack: the routes of the route table, fallbacks included, then the queue, stream and topic consumers. */
export const stackFunctions = (): BundleTarget[] => [
  ...allRoutes().map((route) => ({ name: route.name, handler: route.handler })),
  ...queueDefinitions.map((queue) => ({ name: queue.consumer.name, handler: queue.consumer.handler })),
  ...streamConsumers.map((consumer) => ({ name: consumer.name, handler: consumer.handler })),
  ...topicConsumers.map((topic) => ({ name: topic.consumer.name, handler: topic.consumer.handler })),
  ...schedules.map((schedule) => ({ name: schedule.name, handler: schedule.handler })),
];

/** The default bundle folder: one per repository checkout (its path hashed), under the OS temporary directory. */
export const defaultBundleDir = (): string =>
  join(tmpdir(), `sim-service-bundles-${createHash('sha256').update(repositoryRoot).digest('hex').slice(0, 8)}`);

/**
 * Bundles `functions` (default: every function of the stack) in one esbuild run with the
 * stack's settings (`esbuildMultiBuildOptions`, byte-identical to one `esbuildBuildOptions`
 * run per function) into `dir` (default `defaultBundleDir()`). Each file is written to a
 * temporary name and renamed into place, so a process that imports a bundle while another
 * rebuilds the same folder reads either the old or the new file, never half of one.
 * Rejects with esbuild's errors when a function does not bundle.
 */
export const buildFunctionBundles = async (options: { dir?: string; functions?: BundleTarget[] } = {}): Promise<FunctionBundles> => {
  const started = performance.now();
  const dir = options.dir ?? defaultBundleDir();
  const functions = options.functions ?? stackFunctions();
  const names = new Set<string>();
  for (const { name } of functions) {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new Error(`cannot bundle ${JSON.stringify(name)}: a function name is kebab-case`);
    if (names.has(name)) throw new Error(`cannot bundle ${name} twice`);
    names.add(name);
  }
  const entries = functions.map(({ name, handler }) => ({ name, entry: join(repositoryRoot, handler) }));
  let outputs;
  try {
    // The functions in one run, and each side module (infra/bundling.ts) into the folder of
    // every function that has it, beside its index.mjs, as the stack's afterBundling hook does.
    const results = await Promise.all([
      build({ ...esbuildMultiBuildOptions(entries, dir), write: false }),
      ...functions.flatMap(({ name, handler }) =>
        sideModulesOf(handler).map((side) => build({ ...sideModuleBuildOptions(repositoryRoot, side, join(dir, name)), write: false })),
      ),
    ]);
    outputs = results.flatMap((result) => result.outputFiles);
  } catch (error) {
    throw new Error(`bundling the functions failed: ${(error as Error).message}`);
  }
  const suffix = `.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  for (const output of outputs) {
    mkdirSync(dirname(output.path), { recursive: true });
    writeFileSync(`${output.path}${suffix}`, output.contents);
    renameSync(`${output.path}${suffix}`, output.path);
  }
  const file = functionBundling.format === 'esm' ? 'index.mjs' : 'index.js';
  const files = Object.fromEntries(functions.map(({ name, handler }) => [handler, join(dir, name, file)]));
  return { dir, files, buildMs: Math.round(performance.now() - started) };
};
