import type { RuntimeCleanups } from './runtime-cleanups';

/** Environment variables the runtime unsets unless given, so an absent value means "not configured". */
const optionalVariables = ['STRIPE_SECRET_KEY', 'STRIPE_API_BASE'];

/**
 * The handlers' environment, set later: `reserve` adds the step that puts process.env back to
 * the cleanups now, so it runs after everything added later has stopped (the gateway above
 * all: a request that arrives while the runtime stops must not load a handler whose
 * variables are gone); `apply` sets `env` on process.env, where handlers read their
 * configuration once, when first imported, after unsetting the optional variables it does not
 * name. The step puts back every variable `apply` touched as it was (unset ones unset again),
 * and nothing when `apply` never ran.
 */
export const reserveHandlerEnvironment = (cleanups: RuntimeCleanups): { apply(env: Record<string, string>): void } => {
  const previous = new Map<string, string | undefined>();
  cleanups.add(() => {
    for (const [name, value] of previous) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  return {
    apply: (env) => {
      for (const name of [...Object.keys(env), ...optionalVariables]) if (!previous.has(name)) previous.set(name, process.env[name]);
      for (const name of optionalVariables) delete process.env[name];
      Object.assign(process.env, env);
    },
  };
};
