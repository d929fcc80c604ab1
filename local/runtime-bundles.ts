import { buildFunctionBundles, type FunctionBundles } from './bundle-build';
import { useBundledHandlers } from './handler-loader';
import type { RuntimeCleanups } from './runtime-cleanups';
import type { LocalRuntimeOptions } from './runtime-types';

/**
 * The bundles the functions will run from (LocalRuntimeOptions.bundled): `true` starts
 * building them now, bundles given are used as they are, anything else resolves to undefined
 * (the TypeScript sources). A failed build rejects only when awaited.
 */
export const startBundling = (bundled: LocalRuntimeOptions['bundled']): Promise<FunctionBundles | undefined> => {
  const bundling = bundled === true ? buildFunctionBundles() : Promise.resolve(bundled || undefined);
  bundling.catch(() => undefined);
  return bundling;
};

/**
 * Makes the handlers load from `bundles` with source maps enabled in the process (for stack
 * traces); the cleanup goes back to the sources and the process's former source-map setting.
 */
export const runHandlersFromBundles = (bundles: FunctionBundles, cleanups: RuntimeCleanups): void => {
  const sourceMaps = process.sourceMapsEnabled ?? false;
  process.setSourceMapsEnabled(true);
  useBundledHandlers(bundles.files);
  cleanups.add(() => {
    useBundledHandlers(undefined);
    process.setSourceMapsEnabled(sourceMaps);
  });
};
