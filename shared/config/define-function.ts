import { configureLogger } from '../observability/logger';
import { configureMetrics } from '../observability/metrics';
import { functionConfigs, observabilityVariables, type FunctionConfig, type FunctionName, type ObservabilityConfig } from './function-config';
import { readConfiguration } from './variables';

/** How one function is wired: its dependencies from its configuration, its handler from its dependencies. */
export interface FunctionWiring<Name extends FunctionName, Deps, Handler> {
  /** Builds the clients and adapters once per container from the configuration read at init. */
  deps: (config: FunctionConfig<Name>) => Deps;
  /** The route or consumer on those deps (a factory in shared/ that tests call with deps of their own). */
  handler: (deps: Deps) => Handler;
}

/**
 * The one way every function of functions/ is wired, HTTP routes and queue consumers alike:
 *
 *     export const handler = defineFunction('get-sim', { deps: developerDeps, handler: getSimRoute });
 *
 * Evaluated at module load, that is at the function's init: the function's configuration
 * (shared/config/function-config.ts) is read from process.env and validated as a whole,
 * its dependencies are built once for the container, and the handler is built on them. A
 * deployed function with missing or invalid configuration fails at init with an error that
 * names every variable (`get-sim: invalid configuration: TABLE_NAME is not set`), not on its
 * tenth request. Nothing is read from the environment per request, secrets excepted
 * (./secrets.ts). LOG_LEVEL, POWERTOOLS_SERVICE_NAME and POWERTOOLS_METRICS_NAMESPACE
 * (`observabilityVariables`) configure the logger and metrics of every function. The route and consumer factories live in shared/, so tests import them and
 * pass deps of their own without reading the environment.
 */
export const defineFunction = <Name extends FunctionName, Deps, Handler>(
  name: Name,
  wiring: FunctionWiring<Name, Deps, Handler>,
  env: NodeJS.ProcessEnv = process.env,
): Handler => {
  const config = readConfiguration(functionConfigs[name], env, name) as FunctionConfig<Name>;
  const observability = readConfiguration(observabilityVariables, env, name) as ObservabilityConfig;
  configureLogger({ level: observability.logLevel, service: observability.serviceName });
  configureMetrics({ namespace: observability.metricsNamespace });
  return wiring.handler(wiring.deps(config));
};
