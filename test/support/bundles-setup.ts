import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildFunctionBundles, type FunctionBundles } from '../../local/bundle-build';
import { shareServers } from './global-setup';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set in the bundled project only: the functions' bundles, which startTestRuntime runs. */
    bundles?: FunctionBundles;
  }
}

/**
 * Global setup of the bundled project (vitest.config.ts): the shared servers
 * (test/support/global-setup.ts) and, while they start, every function of the stack bundled
 * once with the stack's esbuild settings into a folder of its own for this run (removed
 * afterwards). The test files get the bundles, and their startTestRuntime runs them instead
 * of the TypeScript sources. The build time is printed.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The name must match the folder pattern vitest.config.ts leaves to Node's own loader.
  const dir = mkdtempSync(join(tmpdir(), 'sim-service-bundles-test-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const [servers, built] = await Promise.allSettled([shareServers(project), buildFunctionBundles({ dir })]);
  if (servers.status === 'rejected' || built.status === 'rejected') {
    if (servers.status === 'fulfilled') await servers.value();
    removeDir();
    throw servers.status === 'rejected' ? servers.reason : (built as PromiseRejectedResult).reason;
  }
  const bundles = built.value;
  process.stdout.write(`bundled test run: ${Object.keys(bundles.files).length} functions bundled in ${bundles.buildMs} ms\n`);
  project.provide('bundles', bundles);
  return async () => {
    await servers.value();
    removeDir();
  };
}
