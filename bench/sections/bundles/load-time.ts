import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { functionConfigs } from '../../../shared/config/function-config';
import { requiredVariables } from '../../../shared/config/variables';
import type { SectionContext } from '../../lib/context';
import { median, round } from '../../lib/stats';
import type { BundleFigure } from './figures';

/** Processes per bundle for the load time. */
export const loadSamples = 21;

/** The child that imports a bundle: prints the import time and the time since its process started. */
export const loaderScript =
  'const t0 = performance.now(); const m = await import(process.argv[1]); const t1 = performance.now();' +
  "if (typeof m.handler !== 'function') throw new Error('no handler export');" +
  'process.stdout.write(JSON.stringify({ importMs: t1 - t0 }));';

/**
 * The child whose instructions are counted (./load-instructions.ts): it imports the bundle and
 * checks its handler, and writes nothing. Writing to a pipe makes Node set up a stream for
 * stdout, about 20 M instructions in the minimal handler's process but about 7 M in one that
 * has already loaded the networking modules the SDK imports; the minimal handler's count,
 * which every bundle's is taken from, would then take off more than the bundle's own process
 * spends on it, and every ratio would read high (send-sms with SMS_PROVIDER=aws about 1.33
 * instead of 1.30 × the DynamoDB-only baseline).
 */
export const instructionLoaderScript =
  "const m = await import(process.argv[1]); if (typeof m.handler !== 'function') throw new Error('no handler export');";

/** A stand-in value for a required variable: a queue URL for the queue URLs, the name itself otherwise. */
const standIn = (name: string): string =>
  name.endsWith('_QUEUE_URL')
    ? `https://sqs.eu-west-2.amazonaws.com/000000000000/bench-${name.slice(0, -'_QUEUE_URL'.length).toLowerCase().replaceAll('_', '-')}`
    : `bench-${name.toLowerCase().replaceAll('_', '-')}`;

/**
 * The environment of a Lambda function of the stack, as far as loading is concerned (no
 * NODE_OPTIONS: the functions run without --enable-source-maps): every variable that any
 * function's configuration requires (shared/config/function-config.ts), read from the
 * declarations so that a new one cannot be missed (a function missing one fails at init and
 * would not be measured: issue #22, deliver-webhook without WEBHOOK_DELIVERY_QUEUE_URL).
 */
export const benchLoadEnv = (): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  ...Object.fromEntries(Object.values(functionConfigs).flatMap((spec) => requiredVariables(spec)).map((name) => [name, standIn(name)])),
  AWS_REGION: 'eu-west-2',
  TABLE_NAME: 'bench',
});

const loadOnce = (file: string, env: Record<string, string> = {}): { importMs: number; processMs: number } => {
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', loaderScript, pathToFileURL(file).href], {
    encoding: 'utf8',
    env: { ...benchLoadEnv(), ...env },
  });
  const processMs = performance.now() - started;
  if (result.status !== 0) throw new Error(`importing ${file} failed: ${(result.stderr || '').trim().split('\n').slice(-3).join(' ')}`);
  return { importMs: (JSON.parse(result.stdout) as { importMs: number }).importMs, processMs };
};

/**
 * The load time of every built bundle: one warm-up process each (the file cache; a bundle
 * that fails to load keeps the error), then `loadSamples` rounds over all of them, each a fresh
 * node process, interleaved so that a busy moment hits them alike; the medians of the import
 * and of the whole process.
 */
export const measureLoadTimes = (context: SectionContext, figures: BundleFigure[], files: Map<string, string>): void => {
  const loadable = figures.filter((figure) => files.has(figure.name));
  const samples = new Map(loadable.map((figure) => [figure.name, [] as { importMs: number; processMs: number }[]]));
  context.log(`bundles: loading each of ${loadable.length} bundles in ${loadSamples} fresh node processes (interleaved)`);
  for (const figure of loadable) {
    try {
      loadOnce(files.get(figure.name)!, figure.env);
    } catch (error) {
      figure.error = (error as Error).message;
      samples.delete(figure.name);
    }
  }
  for (let round = 0; round < loadSamples; round += 1) {
    for (const figure of loadable) {
      if (!samples.has(figure.name)) continue;
      samples.get(figure.name)!.push(loadOnce(files.get(figure.name)!, figure.env));
    }
  }
  for (const figure of loadable) {
    const taken = samples.get(figure.name);
    if (!taken) continue;
    figure.loadMs = round(median(taken.map((sample) => sample.importMs)), 1);
    figure.processMs = round(median(taken.map((sample) => sample.processMs)), 1);
  }
};
