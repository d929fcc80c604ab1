/**
 * What `npm start` and `npm run invoke` read from the environment: the seed document
 * (SEED_FILE or the demo seed) and the variables passed on to the handlers.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { repositoryRoot } from './handler-loader';

/** The demo seed, loaded when SEED_FILE is not set. */
export const demoSeedFile = join(repositoryRoot, 'local', 'demo-seed.json');

/** A problem with the command line or environment, reported as its message alone. */
export class UsageError extends Error {}

/** Environment variables passed on to the handlers when they are set (LOCAL-CONTRACT.md and ours). */
export const forwardedVariables = [
  'STOREFRONT_SERVICE_TOKEN',
  'STRIPE_SECRET_KEY',
  'STRIPE_API_BASE',
  'STRIPE_WEBHOOK_SECRET',
  'SMS_PROVIDER_URL',
  'CALLBACK_ALLOWED_HOSTS',
  'SMS_PROVIDER_TOKEN',
  'SMS_RECEIPT_SECRET',
  'CALLBACK_SIGNING_SECRET',
  'SMS_SIMULATOR_DELAY_MS',
  'SMS_SIMULATOR_OUTCOME',
  // AWS End User Messaging SMS (issue #21; docs/local-runtime.md).
  'SMS_PROVIDER',
  'SMS_ORIGINATION_IDENTITY',
  'SMS_CONFIGURATION_SET',
  'AWS_SMS_ENDPOINT',
  'EMAIL_OUTBOX_DIR',
  'LOG_LEVEL',
];

/**
 * The handler environment given by the shell: the forwarded variables that are set. Without
 * EMAIL_OUTBOX_DIR each runtime picks an outbox of its own (local/runtime-outbox.ts), so two
 * instances side by side never share one.
 */
export const forwardedEnv = (env: NodeJS.ProcessEnv = process.env): Record<string, string> => {
  const result: Record<string, string> = {};
  for (const name of forwardedVariables) {
    const value = env[name];
    if (value !== undefined && value !== '') result[name] = value;
  }
  return result;
};

/**
 * The seed document: SEED_FILE (relative to the current folder), else the demo seed.
 * `source` says where it came from; the seed is undefined (with a note) when the demo seed
 * is missing. A missing SEED_FILE or invalid JSON is a UsageError.
 */
export const readSeed = (env: NodeJS.ProcessEnv = process.env): { seed?: unknown; source: string } => {
  const given = env.SEED_FILE;
  const file = given ? (isAbsolute(given) ? given : resolve(given)) : demoSeedFile;
  if (!existsSync(file)) {
    if (given) throw new UsageError(`SEED_FILE ${file} does not exist.`);
    return { source: `no seed: the demo seed ${file} is missing, so the table starts empty` };
  }
  try {
    return { seed: JSON.parse(readFileSync(file, 'utf8')), source: file };
  } catch (error) {
    throw new UsageError(`The seed file ${file} is not valid JSON: ${(error as Error).message}`);
  }
};

/** The usage line of `npm start`. */
export const startUsage = 'Usage: npm start [-- --persist DIR] [--bundled] [--pretty]';

/** The command line of `npm start`: `--persist DIR`, `--bundled`, `--pretty`. */
export const parseArguments = (args: string[]): { persistDir?: string; bundled: boolean; pretty: boolean } => {
  let persistDir: string | undefined;
  let bundled = false;
  let pretty = false;
  for (let index = 0; index < args.length; index += 1) {
    const argument = args[index]!;
    if (argument === '--persist') {
      persistDir = args[++index];
      if (!persistDir) throw new UsageError('--persist needs a folder: npm start -- --persist .local-data');
    } else if (argument.startsWith('--persist=')) {
      persistDir = argument.slice('--persist='.length);
    } else if (argument === '--bundled') {
      bundled = true;
    } else if (argument === '--pretty') {
      pretty = true;
    } else {
      throw new UsageError(`Unknown argument ${argument}. ${startUsage}`);
    }
  }
  return { persistDir: persistDir ? resolve(persistDir) : undefined, bundled, pretty };
};

