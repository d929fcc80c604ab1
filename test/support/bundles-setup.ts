import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildFunctionBundles, type FunctionBundles } from '../../local/bundle-build';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set in the bundled project only: the functions' bundles, which startTestRuntime runs. */
    bundles?: FunctionBundles;
  }
}

/**
 * Global setup of the bundled project (vitest.config.ts): bundles every function of the
 * stack once, with the stack's esbuild settings, into a folder of its own for this run
 * (removed afterwards), and hands the bundles to the test files, whose startTestRuntime then
 * runs them instead of the TypeScript sources. The build time is printed.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  // The name must match the folder pattern vitest.config.ts externalises (imported natively).
  const dir = mkdtempSync(join(tmpdir(), 'sim-service-bundles-test-'));
  const bundles = await buildFunctionBundles({ dir });
  process.stdout.write(`bundled test run: ${Object.keys(bundles.files).length} functions bundled in ${bundles.buildMs} ms\n`);
  project.provide('bundles', bundles);
  return () => rmSync(dir, { recursive: true, force: true });
}
