/**
 * Configuration as data: each environment variable a function reads is declared once (name,
 * required / optional / a documented default, and a parser), and a function's whole
 * configuration is read from the environment in one go by `readConfiguration`, which reports
 * every missing or invalid variable at once. This module imports nothing, so the declarations
 * (./function-config.ts) cost a bundle almost nothing and the stack tests can read them too.
 *
 * Secrets are not configuration: they are read per request through ./secrets.ts (cached five
 * minutes), so a rotated secret is seen without a redeploy.
 */

/** Turns a variable's text into its value; throws an Error whose message says what is wrong. */
export type Parser<T> = (text: string) => T;

/** One environment variable: its name, whether it must be set, its default and its parser. */
export interface Variable<T> {
  name: string;
  /** `required`: unset is an error; `optional`: unset is undefined; `default`: unset is `fallback`. */
  presence: 'required' | 'optional' | 'default';
  parse: Parser<T>;
  /** The documented default of a `default` variable (a product decision, not a guess). */
  fallback?: T;
}

/** A configuration: named variables. */
export type ConfigSpec = Record<string, Variable<unknown>>;

/** The values a configuration is read into. */
export type ConfigOf<Spec extends ConfigSpec> = {
  [Key in keyof Spec]: Spec[Key] extends Variable<infer T>
    ? Spec[Key]['presence'] extends 'optional'
      ? T | undefined
      : T
    : never;
};

/** A variable that must be set (and non-empty). */
export const required = <T>(name: string, parse: Parser<T>): Variable<T> & { presence: 'required' } => ({
  name,
  presence: 'required',
  parse,
});

/** A variable that may be unset (or empty): its value is then undefined. */
export const optional = <T>(name: string, parse: Parser<T>): Variable<T> & { presence: 'optional' } => ({
  name,
  presence: 'optional',
  parse,
});

/** A variable with a documented default, used when it is unset (or empty). */
export const withDefault = <T>(name: string, parse: Parser<T>, fallback: T): Variable<T> & { presence: 'default' } => ({
  name,
  presence: 'default',
  parse,
  fallback,
});

/**
 * A variable that a library reads from the environment itself (the AWS SDK): set, its value
 * here is undefined, and the library reads it; unset (or empty), `libraryDefault`, the value the
 * library would settle on, so that it can be given and the library need not look.
 */
export const readByLibrary = <T>(name: string, libraryDefault: T): Variable<T | undefined> & { presence: 'default' } =>
  withDefault<T | undefined>(name, () => undefined, libraryDefault);

/** Any text. */
export const text: Parser<string> = (value) => value;

/** An absolute URL (kept as text). */
export const url: Parser<string> = (value) => {
  try {
    new URL(value);
  } catch {
    throw new Error(`must be an absolute URL, not ${JSON.stringify(value)}`);
  }
  return value;
};

/** One of the given words (e.g. SMS_PROVIDER: `http` or `aws`). */
export const oneOf =
  <const Words extends readonly string[]>(words: Words): Parser<Words[number]> =>
  (value) => {
    if (!words.includes(value)) throw new Error(`must be one of ${words.join(', ')}, not ${JSON.stringify(value)}`);
    return value as Words[number];
  };

/** Comma-separated whole seconds, at least one (e.g. a retry schedule: `60,300,1800`). */
export const wholeSecondsList: Parser<number[]> = (value) => {
  const steps = value.split(',').map((part) => part.trim());
  if (steps.some((step) => !/^\d{1,6}$/.test(step))) {
    throw new Error(`must be comma-separated whole seconds (e.g. 60,300,1800), not ${JSON.stringify(value)}`);
  }
  return steps.map(Number);
};

/** A positive, finite number (fractions allowed). */
export const positiveNumber: Parser<number> = (value) => {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`must be a positive number, not ${JSON.stringify(value)}`);
  return parsed;
};

/** A configuration that could not be read: `problems` names each variable and what is wrong with it. */
export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
  constructor(
    readonly problems: string[],
    subject: string,
  ) {
    super(`${subject}: invalid configuration: ${problems.join('; ')}`);
  }
}

/**
 * Reads a whole configuration from `env`, once. Every variable is checked before anything is
 * returned, and all problems are reported together (`TABLE_NAME is not set; STOCK_HOLD_MINUTES
 * must be a positive number, not "soon"`), so a deployed function with missing configuration
 * fails at init with the full list. An empty value counts as unset.
 */
export const readConfiguration = <Spec extends ConfigSpec>(spec: Spec, env: NodeJS.ProcessEnv, subject = 'configuration'): ConfigOf<Spec> => {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, variable] of Object.entries(spec)) {
    const raw = env[variable.name];
    if (raw === undefined || raw === '') {
      if (variable.presence === 'required') problems.push(`${variable.name} is not set`);
      values[key] = variable.presence === 'default' ? variable.fallback : undefined;
      continue;
    }
    try {
      values[key] = variable.parse(raw);
    } catch (error) {
      problems.push(`${variable.name} ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (problems.length > 0) throw new ConfigurationError(problems, subject);
  return values as ConfigOf<Spec>;
};

/** Names of the variables a configuration requires, sorted. */
export const requiredVariables = (spec: ConfigSpec): string[] =>
  Object.values(spec)
    .filter((variable) => variable.presence === 'required')
    .map((variable) => variable.name)
    .sort();
