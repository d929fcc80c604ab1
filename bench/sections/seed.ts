/**
 * Section 8, seed (issue #31, point 7): `npm run seed` of a generated fleet file
 * (bench/lib/seed-fleet-file.ts: one customer group, ids ascending, every fifth SIM suspended)
 * into a new table of a DynamoDB Local of its own (`--create-table`: the list index built in
 * bulk), as an operator runs it, in its own process: wall time, items written and the peak
 * resident memory of the process (Linux VmHWM). Two fleets, a tenth of the size and the size
 * (`--seed-sims`, 100,000 by default), so that the growth of the peak per SIM shows that memory
 * follows the per-SIM records of the loader (docs/seed.md: 75 to 130 bytes a SIM), not the file.
 * Then A1's pages of the big fleet, the handler invoked in this process: the first, a middle and
 * the last page, of the whole group, of `status=suspended` and of `customer=Fleet South`, with
 * their sequential round trips and read units (at most 4 and 120, as section 5), and the p50 and
 * p99 of 40 more answers of each (a p99 of at most 250 ms, as section 5: issue #31, point 8).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { buildApiGatewayEvent } from '../../local/api-gateway-event';
import { startDynamoDbLocal } from '../../local/dynamodb-local';
import { lambdaContext } from '../../local/lambda-context';
import { billedReadUnits, countCalls } from '../../shared/db/call-counter';
import { listSimsRoute } from '../../shared/routes/list-sims';
import type { SectionContext } from '../lib/context';
import { writeSeedFleetFile, type SeedFleet } from '../lib/seed-fleet-file';
import { runMeasuredChild } from '../lib/measured-child';
import { percentile, round } from '../lib/stats';

/** One `npm run seed` of a fleet file. */
export interface SeedRun {
  sims: number;
  megabytes: number;
  /** Wall time of the process, start to exit. */
  seconds: number;
  /** Seconds until the document was checked whole (the first pass), from the process's own line. */
  checkSeconds?: number;
  items: number;
  itemsPerSecond: number;
  peakRssMb: number;
}

/** One A1 page of the big fleet. */
export interface SeedPageFigure {
  case: string;
  query: string;
  status: number;
  count?: number;
  results?: number;
  firstId?: number;
  /** The id the page must start with (the fleet's ids ascend with its index). */
  expectedFirstId: number;
  roundTrips: number;
  readUnits: number;
  /** The first answer's time, then the median and 99th percentile of `samples` more of the same page. */
  ms: number;
  p50Ms?: number;
  p99Ms?: number;
  samples?: number;
}

/** Section 8's figures. */
export interface SeedBenchResult {
  runs: SeedRun[];
  /** Peak RSS growth per SIM from the small fleet to the big one, in bytes. */
  bytesPerSim: number;
  pages: SeedPageFigure[];
}

/** The most a SIM may add to the loader's peak memory (docs/seed.md: its records, 75 to 130 bytes as the arrays grow). */
const bytesPerSimTarget = 200;
/** What the heap's own sizing may add between two runs whatever their size (V8 grows the heap with the garbage of a run). */
const heapAllowanceMb = 64;

/** `npm run seed -- FILE --endpoint E --table T --create-table` in its own process, its peak memory sampled. */
const runSeedCli = async (context: SectionContext, root: string, file: string, fleet: SeedFleet, endpoint: string, tableName: string): Promise<SeedRun> => {
  const { code, output, seconds, peakRssMb: peak } = await runMeasuredChild(root, ['local/seed-cli.ts', file, '--endpoint', endpoint, '--table', tableName, '--create-table'], {
    onStderrLine: (line) => {
      if (line.startsWith('Written')) context.log(`seed: ${line}`);
    },
  });
  if (code !== 0) throw new Error(`npm run seed exited ${code}: ${output.slice(-600)}`);
  const items = Number(/Loaded (\d+) items/.exec(output)?.[1] ?? Number.NaN);
  const checked = /Checked [\d,]+ SIMs and the rest of .* in ([\d.]+) s/.exec(output);
  return {
    sims: fleet.sims,
    megabytes: round(fleet.bytes / 1048576, 1),
    seconds: round(seconds, 1),
    ...(checked ? { checkSeconds: Number(checked[1]) } : {}),
    items,
    itemsPerSecond: Math.round(items / seconds),
    peakRssMb: round(peak, 0),
  };
};

/** Times each page is asked again after its first answer, for its p50 and p99 (the bound of issue #31, point 8: 250 ms). */
const pageSamples = 40;
/** The p99 a page of a fleet loaded by the seed is held to, as section 5's pages are. */
const pageP99TargetMs = 250;

/** A1 pages of the loaded fleet through the handler, with their round trips and read units, then `pageSamples` more answers of each for p50 and p99. */
const measurePages = async (endpoint: string, tableName: string, fleet: SeedFleet): Promise<SeedPageFigure[]> => {
  const client = new DynamoDBClient({ endpoint, region: 'eu-west-2', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const db = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  const counter = countCalls(db, { capacity: true });
  // One developer: the clock moves on 10 s before each request, past the poll interval.
  const clock = { now: Date.now() };
  const handler = listSimsRoute({ db, tableName, now: () => clock.now }) as unknown as (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
  const pageSize = 100;
  const pagesOf = (count: number) => Math.max(1, Math.ceil(count / pageSize));
  // Each case: its filter, how many SIMs match, and the index in the fleet of the n-th match (every fifth SIM is suspended; Fleet South owns indexes 6 and 7 of every ten).
  const cases: [string, string, number, (match: number) => number][] = [
    ['whole group', '', fleet.sims, (match) => match],
    ['status=suspended', 'status=suspended', fleet.sims / 5, (match) => 5 * match + 4],
    ['customer=Fleet South', `customer=${encodeURIComponent('Fleet South')}`, fleet.sims / 5, (match) => 10 * Math.floor(match / 2) + 6 + (match % 2)],
  ];
  const figures: SeedPageFigure[] = [];
  try {
    for (const [label, filter, matching, indexOfMatch] of cases) {
      for (const [which, page] of [['first', 1], ['middle', Math.ceil(pagesOf(matching) / 2)], ['last', pagesOf(matching)]] as const) {
        clock.now += 10_000;
        const rawQuery = [filter, `page=${page}`, `page_size=${pageSize}`].filter(Boolean).join('&');
        const event = buildApiGatewayEvent(
          { resource: '/developer/api/sims', pathParameters: null },
          {
            method: 'GET', path: '/developer/api/sims/', rawQuery, body: Buffer.alloc(0), sourceIp: '127.0.0.1', localPort: 3000,
            rawHeaders: ['Authorization', `Bearer ${fleet.bearerToken}`, 'X-Customer-API-Key', fleet.apiKey],
          },
          { now: clock.now },
        );
        counter.reset();
        const started = performance.now();
        const answer = await handler(event, lambdaContext({ name: 'list-sims' }));
        const ms = performance.now() - started;
        const reads = counter.calls.filter((call) => ['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand'].includes(call.command));
        const roundTrips = counter.roundTrips();
        const readUnits = round(reads.reduce((sum, call) => sum + billedReadUnits(call), 0), 1);
        const times: number[] = [];
        for (let sample = 0; sample < pageSamples; sample += 1) {
          clock.now += 10_000;
          const again = { ...event, requestContext: { ...event.requestContext, requestTimeEpoch: clock.now } };
          const begun = performance.now();
          await handler(again, lambdaContext({ name: 'list-sims' }));
          times.push(performance.now() - begun);
        }
        const body = JSON.parse(answer.body) as { count?: number; results?: { id: number }[] };
        figures.push({
          case: `${label}, ${which} page`,
          query: rawQuery,
          status: answer.statusCode,
          ...(body.count === undefined ? {} : { count: body.count }),
          ...(body.results ? { results: body.results.length, ...(body.results[0] ? { firstId: body.results[0].id } : {}) } : {}),
          expectedFirstId: fleet.firstId + indexOfMatch((page - 1) * pageSize),
          roundTrips,
          readUnits,
          ms: round(ms, 1),
          p50Ms: round(percentile(times, 50), 1),
          p99Ms: round(percentile(times, 99), 1),
          samples: times.length,
        });
      }
    }
  } finally {
    counter.detach();
    client.destroy();
  }
  return figures;
};

/** Section 8 (see the file's comment): `sims` SIMs and a tenth of them. */
export const runSeed = async (context: SectionContext, options: { root: string; sims: number }): Promise<SeedBenchResult> => {
  const folder = mkdtempSync(join(tmpdir(), 'bench-seed-'));
  context.log('seed: starting a DynamoDB Local of its own');
  const dynamodb = await startDynamoDbLocal();
  try {
    const runs: SeedRun[] = [];
    let big: SeedFleet | undefined;
    for (const sims of [Math.max(1, Math.round(options.sims / 10)), options.sims]) {
      const file = join(folder, `fleet-${sims}.json`);
      const fleet = await writeSeedFleetFile(file, { sims });
      context.log(`seed: npm run seed of ${sims.toLocaleString('en-GB')} SIMs (${round(fleet.bytes / 1048576, 1)} MB)`);
      const run = await runSeedCli(context, options.root, file, fleet, dynamodb.endpoint, `seed-${sims}`);
      context.log(`seed: ${run.items} items in ${run.seconds} s, peak RSS ${run.peakRssMb} MB`);
      runs.push(run);
      rmSync(file, { force: true });
      big = fleet;
    }
    const [small, large] = runs as [SeedRun, SeedRun];
    const bytesPerSim = Math.round(((large.peakRssMb - small.peakRssMb) * 1048576) / Math.max(1, large.sims - small.sims));
    const pages = await measurePages(dynamodb.endpoint, `seed-${options.sims}`, big!);

    const section = '8 seed';
    // Per SIM: the SIM, its ICCID item, its claim, 3.6 list entries (two per customer on its path), half a pool share; then a count page per some 3,000 SIMs and list, and a few items per group and day.
    const perSim = 7.1;
    for (const run of runs) {
      context.targets.check({
        section,
        id: 'seed-load',
        subject: `npm run seed of ${run.sims.toLocaleString('en-GB')} SIMs (${run.megabytes} MB)`,
        target: 'every item written, the list index built in bulk',
        actual: `${run.items.toLocaleString('en-GB')} items in ${run.seconds} s (${run.itemsPerSecond.toLocaleString('en-GB')} items/s; checked in ${run.checkSeconds ?? '—'} s), peak RSS ${run.peakRssMb} MB`,
        met: run.items >= Math.round(perSim * run.sims) && run.items <= perSim * run.sims + run.sims / 100 + 100,
      });
    }
    context.targets.check({
      section,
      id: 'seed-memory',
      subject: `peak RSS from ${small.sims.toLocaleString('en-GB')} to ${large.sims.toLocaleString('en-GB')} SIMs`,
      target: `grows by at most ${bytesPerSimTarget} bytes a SIM (the loader's per-SIM records, not the file's ${round((large.megabytes * 1048576) / large.sims, 0)} bytes a SIM) and ${heapAllowanceMb} MB of the heap's own sizing`,
      actual: `${small.peakRssMb} → ${large.peakRssMb} MB: ${bytesPerSim} bytes a SIM`,
      met: large.peakRssMb - small.peakRssMb <= heapAllowanceMb + (bytesPerSimTarget * (large.sims - small.sims)) / 1048576,
    });
    for (const page of pages) {
      context.targets.check({
        section,
        id: 'seed-page-cost',
        subject: `${page.case} (${large.sims.toLocaleString('en-GB')} SIMs loaded by npm run seed)`,
        target: `200 from the right SIM on, ≤ 4 sequential round trips, ≤ 120 read units, p99 ≤ ${pageP99TargetMs} ms`,
        actual: `${page.status} from SIM ${page.firstId ?? '—'}, ${page.roundTrips} round trips, ${page.readUnits} read units, first ${page.ms} ms, p50 ${page.p50Ms} ms, p99 ${page.p99Ms} ms of ${page.samples}`,
        met:
          page.status === 200 &&
          page.firstId === page.expectedFirstId &&
          page.roundTrips <= 4 &&
          page.readUnits <= 120 &&
          page.p99Ms !== undefined &&
          page.p99Ms <= pageP99TargetMs,
        ...(page.firstId === page.expectedFirstId ? {} : { evidence: `the page starts at SIM ${page.firstId}, not ${page.expectedFirstId}` }),
      });
    }
    return { runs, bytesPerSim, pages };
  } finally {
    await dynamodb.stop();
    rmSync(folder, { recursive: true, force: true });
  }
};
