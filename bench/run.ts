/**
 * `npm run bench`: measures the cost of every route on this machine (issue #7) and writes
 * bench/results.json and bench/RESULTS.md. Sections (docs/benchmarks.md):
 *
 * 1. bundles     – size and load time of every function's bundle, beside two baselines
 * 2. round-trips – DynamoDB calls and sequential round trips per request, success and 429
 * 3. latency     – warm in-process p50 / p99 of each Area A route, beside raw GetItem
 * 4. throughput  – requests/s of the SIM read through the gateway, beside GetItem's ceiling
 * 5. scale       – list pages of a fleet of 100,000 SIMs (--scale N: N SIMs): round trips,
 *                  read units, p50, p99; write units per kind of SIM change; lag; hot keys
 * 6. rate-limiter – 300 concurrent requests of one developer admit exactly 10
 * 7. feed        – 100,000 in-order usage records through the operator feed's consumer, beside
 *                  the same write requests sent directly (--feed-records=N); memory growth
 *
 * It starts what it needs (DynamoDB Local, the SQS emulator, the gateway, the SMS simulator,
 * a Stripe stand-in: startLocalRuntime), stops all of it, and exits 0 even when targets are
 * missed, printing PASS / MISS per target.
 *
 * Options: --only=bundles,latency,...  run some sections (then nothing is written unless --write)
 *          --write                       write the result files even for a partial run
 *          --merge                       merge a partial run into the result files: its sections replace
 *                                        theirs, a scale run of another size is kept beside the other
 *                                        (npm run bench -- --only=scale --scale 1000000 --merge)
 *          --quick                       fewer samples (a smoke run; figures are rougher)
 *          --keep-bundles=DIR            keep the bundles and esbuild output in DIR
 *          --no-instructions             skip the instruction counts of section 1 (callgrind: 2-4 min)
 *          --scale=N                     the scale section's fleet: N SIMs (default 100000; 1000000 takes
 *                                        about half an hour more to load, not for CI)
 *          --feed-records=N              the feed section's records (default 100000)
 *          --feed-file-lines=N           the lines of the file it sends through admin feed (default 1000000)
 *          --peer-bundle=PATH            a peer's bundle (index.mjs, or its folder) cold-called beside get-sim;
 *          --peer-event=PATH             its event (default event.json beside it): docs/benchmarks.md, "The peer"
 *          --render                      measure nothing: rewrite RESULTS.md from results.json with the
 *                                        causes of bench/causes.ts as they are now
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { format } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { fileURLToPath } from 'node:url';
import { awsVariables } from '../shared/config/function-config';
import { readConfiguration } from '../shared/config/variables';
import { documentClient } from '../shared/db/client';
import { startLocalRuntime, type LocalRuntime } from '../local/runtime';
import { oneCallRoute } from './baselines/one-call-handler';
import { benchSeedDocument } from './lib/bench-seed';
import { scaleFleet, writeScaleFleet } from './lib/scale-fleet';
import { recordCalls, type CallRecorder } from './lib/call-recorder';
import type { SectionContext } from './lib/context';
import { startStandaloneStripeEmulator, type StandaloneStripeEmulator } from '../local/stripe-emulator';
import { currentLoad, runContext, wasLoaded } from './lib/machine';
import { mergedResults, renderMarkdown, type BenchResults } from './lib/report';
import { CredentialPool, type RequestState } from './lib/requests';
import { causesFor, Targets } from './lib/targets';
import { readPeerBundle } from './lib/peer';
import { runBundles } from './sections/bundles';
import { runLatency } from './sections/latency';
import { runRateLimiter } from './sections/rate-limiter';
import { runRoundTrips } from './sections/round-trips';
import { runScale } from './sections/scale';
import { runScaleWrites } from './sections/scale-writes';
import { runThroughput } from './sections/throughput';
import { runFeed, runFeedUpload } from './sections/feed';

const allSections = ['bundles', 'round-trips', 'latency', 'throughput', 'scale', 'rate-limiter', 'feed'] as const;
type SectionName = (typeof allSections)[number];

const root = fileURLToPath(new URL('..', import.meta.url));
/** The secret key of the benchmark's Stripe emulator (local/stripe-emulator, on a port of its own). */
const benchStripeKey = 'sk_test_bench_0000000000000000';

/** `--name=value`, `--name value` (a value not starting with --), or `--name` alone (''). */
const option = (name: string): string | undefined => {
  const argv = process.argv.slice(2);
  const prefix = `--${name}=`;
  const index = argv.findIndex((argument) => argument === `--${name}` || argument.startsWith(prefix));
  if (index < 0) return undefined;
  const found = argv[index]!;
  if (found.startsWith(prefix)) return found.slice(prefix.length);
  const next = argv[index + 1];
  return next !== undefined && !next.startsWith('--') ? next : '';
};

const only = option('only');
const sections: SectionName[] = only
  ? only.split(',').map((name) => {
      if (!(allSections as readonly string[]).includes(name)) throw new Error(`unknown section ${name}; sections: ${allSections.join(', ')}`);
      return name as SectionName;
    })
  : [...allSections];
const quick = option('quick') !== undefined;
const merge = option('merge') !== undefined;
const write = option('write') !== undefined || merge || only === undefined;
const keepBundles = option('keep-bundles') || undefined;
const countInstructions = option('no-instructions') === undefined;
const peerBundle = option('peer-bundle') ? readPeerBundle(option('peer-bundle')!, option('peer-event') || undefined) : undefined;

const sizes = {
  latencySamples: quick ? 40 : 200,
  latencyWarmup: quick ? 5 : 20,
  scaleSamples: quick ? 3 : 15,
  throughputSeconds: quick ? 3 : 10,
  throughputWarmup: quick ? 1 : 2,
  scaleSims: Number(option('scale') || 100_000),
  scalePageSize: 100,
  // SIMs changed in a row for the hottest-key figure (10,000: what a second of 10,000 changes a second writes).
  scaleSweep: quick ? 1_000 : 10_000,
  // Developers: throughput's round robin needs one per 9 requests of its run; the rest serve
  // the other sections (every list request needs a developer that has not listed yet).
  throughputUsers: quick ? 600 : 2_600,
  otherBenchUsers: 600,
  // One fresh developer per list request of the scale section (one list per 5 s per developer).
  scaleUsers: quick ? 200 : 1_000,
  // The rate limiter's arrivals on a synthetic clock, checked against the sliding log.
  rateLimiterArrivals: quick ? 2_000 : 10_000,
  // The operator feed's in-order usage records (issue #20: 100,000).
  feedRecords: Number(option('feed-records') || (quick ? 10_000 : 100_000)),
  // The lines of the file sent through admin feed (issue #20: a million must go through).
  feedFileLines: Number(option('feed-file-lines') || (quick ? 100_000 : 1_000_000)),
};

const log = (line: string): void => {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
};

/**
 * The handlers log JSON lines (warnings of ignored payment events, errors); while the runtime
 * sections run they are kept out of the report and counted, the first errors shown at the end.
 */
const captureConsole = () => {
  const saved = { log: console.log, info: console.info, warn: console.warn, error: console.error, debug: console.debug };
  const captured = { lines: 0, errors: [] as string[] };
  const keep = (level: string) => (...args: unknown[]) => {
    captured.lines += 1;
    const line = format(...args);
    // Node's own warnings (e.g. the AWS SDK's Node version notice) are not the handlers' errors.
    if (level === 'error' && !line.startsWith('(node:') && captured.errors.length < 5) captured.errors.push(line.slice(0, 400));
  };
  console.log = keep('log');
  console.info = keep('info');
  console.warn = keep('warn');
  console.error = keep('error');
  console.debug = keep('debug');
  return { captured, restore: () => Object.assign(console, saved) };
};

const main = async (): Promise<void> => {
  const started = performance.now();
  const context = runContext();
  const targets = new Targets();
  const notes: string[] = [];
  const sectionContext: SectionContext = { targets, notes, log };
  const results: Omit<BenchResults, 'durationSeconds' | 'loadedMachine'> = { context, sections, targets: targets.results, notes };
  log(`commit ${context.commit}; ${context.machine.cores} cores, load average ${context.loadAverage.start}; sections: ${sections.join(', ')}`);

  const guarded = async <T>(name: string, run: () => Promise<T>): Promise<T | undefined> => {
    const sectionStarted = performance.now();
    try {
      const value = await run();
      log(`${name}: done in ${Math.round((performance.now() - sectionStarted) / 1000)} s`);
      return value;
    } catch (error) {
      log(`${name}: FAILED ${(error as Error).stack ?? error}`);
      notes.push(`Section ${name} failed: ${(error as Error).message}.`);
      return undefined;
    }
  };

  if (sections.includes('bundles')) results.bundles = await guarded('bundles', () => runBundles(sectionContext, { keepDir: keepBundles, instructions: countInstructions, peer: peerBundle }));

  const runtimeSections = sections.filter((name) => name !== 'bundles');
  if (runtimeSections.length > 0) {
    let runtime: LocalRuntime | undefined;
    let stripe: StandaloneStripeEmulator | undefined;
    let recorder: CallRecorder | undefined;
    const consoleCapture = captureConsole();
    const stopAll = async () => {
      recorder?.detach();
      await runtime?.stop();
      await stripe?.stop();
      runtime = undefined;
      stripe = undefined;
    };
    const onSignal = (signal: NodeJS.Signals) => {
      log(`${signal}: stopping what the benchmark started`);
      void stopAll().finally(() => process.exit(130));
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      log('starting the local runtime (DynamoDB Local, SQS emulator, gateway, SMS simulator) and a Stripe stand-in');
      stripe = await startStandaloneStripeEmulator({ secretKey: benchStripeKey });
      const seeded = benchSeedDocument(root, { benchUsers: sizes.throughputUsers + sizes.otherBenchUsers });
      const fleet = scaleFleet(sizes.scaleSims, sizes.scaleUsers);
      const seedStarted = performance.now();
      runtime = await startLocalRuntime({
        seed: seeded.document,
        // The scale fleet, written with its list index before the stream consumers start (they would count it twice).
        ...(sections.includes('scale')
          ? {
              preload: async (target: { client: DynamoDBClient; tableName: string }) => {
                const items = await writeScaleFleet(target.client, target.tableName, fleet, {
                  onProgress: (written) => log(`scale fleet: ${written} items written`),
                });
                log(`scale fleet: ${items} items (${sizes.scaleSims} SIMs with their list index) in ${Math.round((performance.now() - seedStarted) / 1000)} s`);
              },
            }
          : {}),
        quiet: true,
        benchRoutes: [oneCallRoute],
        env: {
          STRIPE_SECRET_KEY: benchStripeKey,
          STRIPE_API_BASE: stripe.url,
          // Receipts of the SMS sent while measuring would arrive in the middle of other
          // measurements; section 2 posts one itself.
          SMS_SIMULATOR_DELAY_MS: '3600000',
        },
      });
      log(`seed: ${runtime.seeded?.items ?? 0} items (demo seed, ${seeded.data.bench.credentials.length} developers) and the runtime in ${Math.round((performance.now() - seedStarted) / 1000)} s`);
      const { data } = seeded;
      const benchPool = new CredentialPool(data.bench.credentials, 'bench');
      const throughputCredentials = benchPool.take(sizes.throughputUsers);
      const scalePool = new CredentialPool(fleet.credentials, 'scale');
      const handlersDb = documentClient(readConfiguration(awsVariables, process.env));
      recorder = recordCalls(handlersDb);
      const state: RequestState = {};

      const roundTrips =
        (await guarded('round trips', () => runRoundTrips(sectionContext, { root, data, pool: benchPool, recorder: recorder!, state }))) ?? [];
      if (sections.includes('round-trips')) results.roundTrips = roundTrips;
      if (sections.includes('latency')) {
        results.latency = await guarded('latency', () =>
          runLatency(sectionContext, {
            root, data, pool: benchPool, recorder: recorder!, state, db: handlersDb, tableName: runtime!.tableName, roundTrips,
            samples: sizes.latencySamples, warmup: sizes.latencyWarmup, baseUrl: runtime!.baseUrl,
          }),
        );
      }
      if (sections.includes('throughput')) {
        const ceilingClient = new DynamoDBClient({
          endpoint: runtime.dynamodbEndpoint, region: runtime.env.AWS_REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        });
        recorder.pause();
        try {
          results.throughput = await guarded('throughput', () =>
            runThroughput(sectionContext, {
              root, baseUrl: runtime!.baseUrl, data, credentials: throughputCredentials, ceilingDb: DynamoDBDocumentClient.from(ceilingClient),
              tableName: runtime!.tableName, roundTrips, seconds: sizes.throughputSeconds, warmupSeconds: sizes.throughputWarmup,
            }),
          );
        } finally {
          recorder.resume();
          ceilingClient.destroy();
        }
      }
      if (sections.includes('scale')) {
        const scale = await guarded('scale', () =>
          runScale(sectionContext, { root, data, fleet, pool: scalePool, recorder: recorder!, state, samples: sizes.scaleSamples, pageSize: sizes.scalePageSize }),
        );
        const scaleWrites = await guarded('scale writes', () =>
          runScaleWrites(sectionContext, { db: handlersDb, tableName: runtime!.tableName, fleet, recorder: recorder!, sweep: sizes.scaleSweep, stream: runtime!.stream }),
        );
        results.scaleRuns = [{ sims: sizes.scaleSims, commit: context.commit, date: context.date, ...(scale ? { scale } : {}), ...(scaleWrites ? { scaleWrites } : {}) }];
      }
      if (sections.includes('rate-limiter')) {
        results.rateLimiter = await guarded('rate limiter', () =>
          runRateLimiter(sectionContext, {
            baseUrl: runtime!.baseUrl, data, credentials: [benchPool.fresh(), benchPool.fresh()], concurrent: 300,
            dynamodb: { endpoint: runtime!.dynamodbEndpoint, region: runtime!.env.AWS_REGION!, tableName: runtime!.tableName },
            arrivals: sizes.rateLimiterArrivals,
          }),
        );
      }
      if (sections.includes('feed')) {
        results.feed = await guarded('feed', () =>
          runFeed(sectionContext, { dynamodbEndpoint: runtime!.dynamodbEndpoint, region: runtime!.env.AWS_REGION!, records: sizes.feedRecords }),
        );
        results.feedUpload = await guarded('feed upload', () =>
          runFeedUpload(sectionContext, { sqsEndpoint: runtime!.sqsEndpoint, region: runtime!.env.AWS_REGION!, lines: sizes.feedFileLines, root }),
        );
      }
    } catch (error) {
      log(`runtime: FAILED ${(error as Error).stack ?? error}`);
      notes.push(`The local runtime sections could not run: ${(error as Error).message}.`);
    } finally {
      log('stopping the local runtime');
      await stopAll();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      consoleCapture.restore();
      const { captured } = consoleCapture;
      if (captured.errors.length > 0) {
        notes.push(`The handlers logged ${captured.lines} lines during the run, errors among them, e.g.: ${captured.errors.map((line) => `\`${line}\``).join('; ')}`);
      }
    }
  }

  context.loadAverage.end = currentLoad();
  const complete: BenchResults = {
    ...results,
    loadedMachine: wasLoaded(context),
    durationSeconds: Math.round((performance.now() - started) / 1000),
  };
  const markdown = renderMarkdown(complete);
  process.stdout.write(`\n${markdown}\n`);
  for (const target of complete.targets) {
    process.stdout.write(`${target.status.padEnd(4)}  ${target.section.padEnd(15)} ${target.id} — ${target.subject}: ${target.actual} (wanted ${target.target})\n`);
  }
  if (write) {
    const written = merge ? mergedResults(JSON.parse(readFileSync(new URL('results.json', import.meta.url), 'utf8')) as BenchResults, complete) : complete;
    writeFileSync(new URL('results.json', import.meta.url), `${JSON.stringify(written, null, 2)}\n`);
    writeFileSync(new URL('RESULTS.md', import.meta.url), merge ? renderMarkdown(written) : markdown);
    log(`wrote bench/results.json and bench/RESULTS.md (${Math.round(complete.durationSeconds)} s)`);
  } else {
    log('partial run (--only): bench/RESULTS.md and bench/results.json left as they were (add --write to replace them)');
  }
};

/** --render: RESULTS.md again from results.json, with today's known causes for the missed targets. */
const render = (): void => {
  const results = JSON.parse(readFileSync(new URL('results.json', import.meta.url), 'utf8')) as BenchResults;
  for (const target of results.targets) {
    delete target.causes;
    if (target.status !== 'MISS') continue;
    const causes = causesFor(target.id, target.subject);
    if (causes.length > 0) target.causes = causes;
  }
  const markdown = renderMarkdown(results);
  writeFileSync(new URL('results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(new URL('RESULTS.md', import.meta.url), markdown);
  process.stdout.write(markdown);
  log('rewrote bench/RESULTS.md and the causes in bench/results.json from the recorded figures');
};

if (option('render') !== undefined) {
  render();
} else {
  main().then(
    () => {
      process.exitCode = 0;
    },
    (error: unknown) => {
      // Only a defect of the benchmark itself ends up here; missed targets never do.
      log(`benchmark failed: ${(error as Error).stack ?? error}`);
      process.exitCode = 1;
    },
  );
}
