import { describe, expect, it } from 'vitest';
import { benchLoadEnv } from '../../bench/sections/bundles';
import { functionConfigs, type FunctionName } from '../../shared/config/function-config';
import { readConfiguration } from '../../shared/config/variables';

/**
 * The benchmark imports every bundle in a fresh node process with the environment of a Lambda
 * function of the stack (bench/sections/bundles.ts): each function's required configuration
 * must be in it, or the import fails at init and the bundle is never measured (issue #22:
 * deliver-webhook, without WEBHOOK_DELIVERY_QUEUE_URL).
 */
describe("the benchmark's load environment", () => {
  it("holds every variable each function's configuration requires", () => {
    const env = benchLoadEnv();
    const failures = (Object.keys(functionConfigs) as FunctionName[]).flatMap((name) => {
      try {
        readConfiguration(functionConfigs[name], env, name);
        return [];
      } catch (error) {
        return [(error as Error).message];
      }
    });
    expect(failures).toEqual([]);
  });
});
