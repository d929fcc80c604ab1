/**
 * `npm run fuzz`: the fuzz harness at any size (docs/fuzz.md).
 *
 *     npm run fuzz -- --requests 5000 --seed 42     # starts its own runtime (fuzz seed, Stripe stand-in)
 *     npm run fuzz -- --seed 42 --index 17          # regenerates and sends request 17 of seed 42 alone
 *     npm run fuzz -- --serve                       # only starts that runtime, to replay printed curls
 *     npm run fuzz -- --base http://127.0.0.1:3000 --seed-file local/demo-seed.json   # npm start's runtime
 *     npm run fuzz -- --base http://127.0.0.1:3999                                   # a --serve runtime
 *     npm run fuzz -- --names                       # every hostile name in every place of every route (names.ts)
 *
 * Exit status 0 when every answer met the criteria and the runtime is alive, 1 otherwise, 2
 * on a usage error.
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoSecrets } from '../../local/demo-config';
import { startLocalRuntime } from '../../local/runtime';
import { captureConsole } from './console-capture';
import { fuzzContext, fuzzSeedContext, type FuzzContext } from './context';
import { startFuzzRuntime, type FuzzRuntime } from './fuzz-runtime';
import { runFuzz } from './harness';
import { nameCases, nameSweepRequest, nameSweepSize } from './names';
import { formatReport, passed } from './report';

interface Arguments {
  requests: number;
  seed: number;
  indexes?: number[];
  base?: string;
  seedFile?: string;
  concurrency: number;
  timeoutMs: number;
  out: string;
  serve: boolean;
  verbose: boolean;
  names: boolean;
}

const usage = `Usage: npm run fuzz -- [--requests N] [--seed S] [--index K[,K...]] [--concurrency C] [--timeout-ms T]
                        [--base URL [--seed-file FILE]] [--out DIR] [--serve] [--verbose] [--names]`;

class UsageError extends Error {}

const parseArguments = (args: string[]): Arguments => {
  const parsed: Arguments = {
    requests: 1000,
    seed: randomInt(0, 2 ** 31),
    concurrency: 4,
    timeoutMs: 40_000,
    out: join(tmpdir(), 'sim-fuzz'),
    serve: false,
    verbose: false,
    names: false,
  };
  const integer = (name: string, value: string | undefined, min: number, max: number): number => {
    const number = Number(value);
    if (value === undefined || !Number.isInteger(number) || number < min || number > max) throw new UsageError(`${name} needs an integer from ${min} to ${max}`);
    return number;
  };
  for (let index = 0; index < args.length; index += 1) {
    const [flag, inline] = args[index]!.split(/=(.*)/s, 2) as [string, string | undefined];
    const value = () => inline ?? args[++index];
    switch (flag) {
      case '--requests': parsed.requests = integer(flag, value(), 1, 10_000_000); break;
      case '--seed': parsed.seed = integer(flag, value(), 0, 2 ** 32 - 1); break;
      case '--index': parsed.indexes = (value() ?? '').split(',').map((part) => integer(flag, part, 0, 10_000_000)); break;
      case '--concurrency': parsed.concurrency = integer(flag, value(), 1, 64); break;
      case '--timeout-ms': parsed.timeoutMs = integer(flag, value(), 100, 600_000); break;
      case '--base': parsed.base = value(); break;
      case '--seed-file': parsed.seedFile = value(); break;
      case '--out': parsed.out = value() ?? parsed.out; break;
      case '--serve': parsed.serve = true; break;
      case '--verbose': parsed.verbose = true; break;
      case '--names': parsed.names = true; break;
      default: throw new UsageError(`Unknown argument ${args[index]}.\n${usage}`);
    }
  }
  if (parsed.base !== undefined && !/^http:\/\//.test(parsed.base)) throw new UsageError('--base needs an http:// URL');
  if (parsed.seedFile && !parsed.base) throw new UsageError('--seed-file goes with --base (its own runtime uses the fuzz seed)');
  return parsed;
};

/**
 * Context for a runtime this run did not start: the fuzz seed's (a runtime of `--serve`) or the
 * seed file's credentials and names; secrets from the environment, else the demo values.
 */
const externalContext = (seedFile: string | undefined): FuzzContext => {
  const secrets = {
    STOREFRONT_SERVICE_TOKEN: process.env.STOREFRONT_SERVICE_TOKEN || demoSecrets.STOREFRONT_SERVICE_TOKEN,
    STRIPE_WEBHOOK_SECRET: process.env.STRIPE_WEBHOOK_SECRET || demoSecrets.STRIPE_WEBHOOK_SECRET,
    SMS_RECEIPT_SECRET: process.env.SMS_RECEIPT_SECRET || demoSecrets.SMS_RECEIPT_SECRET,
  };
  return seedFile ? fuzzContext(JSON.parse(readFileSync(seedFile, 'utf8')), secrets) : fuzzSeedContext(secrets);
};

const main = async (): Promise<number> => {
  const args = parseArguments(process.argv.slice(2));
  let target: FuzzRuntime | undefined;
  let restoreConsole: (() => void) | undefined;
  const logFile = join(args.out, `runtime-${args.seed}.log`);
  const stop = async () => {
    restoreConsole?.();
    await target?.stop();
  };
  process.once('SIGINT', () => void stop().then(() => process.exit(130)));
  process.once('SIGTERM', () => void stop().then(() => process.exit(143)));
  try {
    let baseUrl = args.base;
    let context: FuzzContext;
    if (baseUrl) {
      context = externalContext(args.seedFile);
    } else {
      console.log('Starting the local runtime with the fuzz seed and a Stripe stand-in ...');
      target = await startFuzzRuntime(({ seed, env }) => startLocalRuntime({ seed, env, quiet: true }));
      baseUrl = target.runtime.baseUrl;
      context = target.context;
      if (args.serve) {
        console.log(`Fuzz runtime ready at ${baseUrl} (Ctrl-C stops it)`);
        await new Promise(() => undefined);
      }
      console.log(`Runtime at ${baseUrl}; its log goes to ${logFile}`);
      restoreConsole = captureConsole(logFile);
    }
    // --names: the hostile-name sweep (names.ts) instead of the seeded generator, every request of it unless --index picks some.
    const cases = args.names ? nameCases(context) : [];
    const requests = args.names ? nameSweepSize(cases) : args.requests;
    const progress = Math.max(Math.floor((args.indexes?.length ?? requests) / 20), 50);
    let answered = 0;
    const report = await runFuzz({
      baseUrl,
      context,
      seed: args.seed,
      requests,
      indexes: args.indexes,
      ...(args.names ? { generate: (index: number, nowMs: number) => nameSweepRequest(context, cases, index, nowMs), regenerate: '--names' } : {}),
      concurrency: args.concurrency,
      timeoutMs: args.timeoutMs,
      onAnswer: (request, outcome, problem) => {
        answered += 1;
        const write = (line: string) => process.stdout.write(`${line}\n`);
        if (args.verbose || args.indexes) {
          write(`#${request.index} ${request.method} ${request.target.slice(0, 100)} [${request.label}] → ${outcome.answer?.status ?? outcome.error}${problem ? `  ✗ ${problem.kind}` : ''}`);
        } else if (answered % progress === 0) {
          write(`  ${answered} answered ...`);
        }
      },
    });
    restoreConsole?.();
    restoreConsole = undefined;
    for (const line of formatReport(report, baseUrl, args.out, { ownRuntime: !args.base })) console.log(line);
    return passed(report) ? 0 : 1;
  } finally {
    await stop();
  }
};

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof UsageError ? error.message : error);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
