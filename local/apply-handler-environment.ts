import type { RuntimeCleanups } from './runtime-cleanups';

/** Environment variables the runtime unsets unless given, so an absent value means "not configured". */
const optionalVariables = ['STRIPE_SECRET_KEY', 'STRIPE_API_BASE'];

/**
 * Sets the handlers' environment on process.env, where handlers read their configuration
 * once, when first imported, after unsetting the optional variables it does not name; the
 * cleanup puts back every variable it touched as it was (unset ones unset again).
 */
export const applyHandlerEnvironment = (env: Record<string, string>, cleanups: RuntimeCleanups): void => {
  const previous = new Map<string, string | undefined>();
  for (const name of [...Object.keys(env), ...optionalVariables]) previous.set(name, process.env[name]);
  cleanups.add(() => {
    for (const [name, value] of previous) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  for (const name of optionalVariables) delete process.env[name];
  Object.assign(process.env, env);
};
