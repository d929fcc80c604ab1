import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';
import { startStandaloneStripeEmulator, type StandaloneStripeEmulator } from '../../local/stripe-emulator/standalone';
import { awsVariables } from '../../shared/config/function-config';
import { readConfiguration } from '../../shared/config/variables';
import { documentClient } from '../../shared/db/client';
import { oneCallRoute } from '../baselines/one-call-handler';
import { runFeed, runFeedUpload } from '../sections/feed';
import { runFeedNewSims } from '../sections/feed-new-sims';
import { runLatency } from '../sections/latency';
import { runRateLimiter } from '../sections/rate-limiter';
import { runRoundTrips } from '../sections/round-trips';
import { runScale } from '../sections/scale';
import { fillCountJournals, runScaleWrites } from '../sections/scale-writes';
import { runThroughput } from '../sections/throughput';
import { benchSeedDocument } from './bench-seed';
import { recordCalls, type CallRecorder } from './call-recorder';
import { captureConsole } from './console-capture';
import type { SectionContext } from './context';
import type { GuardedSection } from './guarded-section';
import type { BenchResults } from './report';
import { CredentialPool, type RequestState } from './requests';
import type { RunSizes, SectionName } from './run-options';
import { buildThroughDoor, type DoorBuild } from './door-fleet';
import { scaleFleet, writeScaleFleet } from './scale-fleet';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The secret key of the benchmark's Stripe emulator (local/stripe-emulator, on a port of its own). */
const benchStripeKey = 'sk_test_bench_0000000000000000';

/** What the runtime sections need of the run. */
export interface RuntimeSectionsRun {
  /** The sections asked for (those other than bundles run here). */
  sections: SectionName[];
  sizes: RunSizes;
  context: SectionContext;
  guarded: GuardedSection;
  /** Where each section's figures go; notes go to context.notes. */
  results: Omit<BenchResults, 'durationSeconds' | 'loadedMachine'>;
}

/**
 * Sections 2 to 7, over one local runtime (DynamoDB Local, the SQS emulator, the gateway, the
 * SMS simulator) with the bench seed, the scale fleet preloaded when the scale section runs, and
 * a Stripe stand-in on a port of its own. The handlers' console output is captured meanwhile
 * (errors among it become a note); everything started is stopped at the end, or on SIGINT or
 * SIGTERM. A runtime that fails to start is a note, not a failed run.
 */
export const runRuntimeSections = async ({ sections, sizes, context: sectionContext, guarded, results }: RuntimeSectionsRun): Promise<void> => {
  const { log, notes } = sectionContext;
  const runContext = results.context;
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
    const fleet = scaleFleet(sizes.scaleSims, sizes.scaleUsers, Date.now(), sizes.scaleDoor, sizes.scaleOrder);
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
              log(
                fleet.door === 'bulk'
                  ? `scale fleet: ${items} items (${sizes.scaleSims} SIMs with their list index) in ${Math.round((performance.now() - seedStarted) / 1000)} s`
                  : `scale fleet: its group (${items} items); its ${sizes.scaleSims} SIMs come through ${fleet.door} once the consumers run`,
              );
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
      let build: DoorBuild | undefined;
      if (fleet.door !== 'bulk') {
        // The door writes with a client of its own: the recorder takes the handlers' calls, the consumers' among them.
        const doorClient = new DynamoDBClient({ endpoint: runtime.dynamodbEndpoint, region: runtime.env.AWS_REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
        try {
          build = await guarded('scale fleet through a door', () => buildThroughDoor(runtime!, { client: doorClient, tableName: runtime!.tableName }, fleet, log, recorder));
        } finally {
          doorClient.destroy();
        }
      }
      await guarded('scale journals', () =>
        fillCountJournals(sectionContext, { db: handlersDb, tableName: runtime!.tableName, fleet, recorder: recorder!, batches: sizes.scaleJournalBatches }),
      );
      const scale = await guarded('scale', () =>
        runScale(sectionContext, { root, data, fleet, pool: scalePool, recorder: recorder!, state, samples: sizes.scaleSamples, pageSize: sizes.scalePageSize }),
      );
      const scaleWrites = await guarded('scale writes', () =>
        runScaleWrites(sectionContext, { db: handlersDb, tableName: runtime!.tableName, fleet, recorder: recorder!, sweep: sizes.scaleSweep, rounds: sizes.scaleWriteRounds, stream: runtime!.stream }),
      );
      results.scaleRuns = [
        {
          sims: sizes.scaleSims,
          commit: runContext.commit,
          date: runContext.date,
          ...(fleet.door === 'bulk' ? {} : { door: fleet.door, order: fleet.order, ...(build ? { build } : {}) }),
          ...(scale ? { scale } : {}),
          ...(scaleWrites ? { scaleWrites } : {}),
        },
      ];
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
      results.feedNewSims = await guarded('feed new SIMs', () =>
        runFeedNewSims(sectionContext, { dynamodbEndpoint: runtime!.dynamodbEndpoint, region: runtime!.env.AWS_REGION!, sims: sizes.feedNewSims }),
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
};
