/**
 * Section 6, the rate limiter at window edges and under load.
 *
 * - Over HTTP (the SIM read through the local gateway): 300 concurrent requests of one
 *   developer at whatever clock position the run is at, and 300 more straddling a 10-second
 *   clock mark (sent 30 ms before it): each burst must admit exactly 10.
 * - In the domain, against the runtime's DynamoDB Local with a synthetic clock: 10,000
 *   arrivals of one caller (single requests and concurrent bursts on both sides of window
 *   edges, over several synthetic hours); the admitted ones are checked against a brute-force
 *   sliding log: 0 trailing windows over their limit. It also reports DynamoDB calls per request.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { routes } from '../../shared/topology/routes';
import { countCalls } from '../../shared/db/call-counter';
import { windowLimits } from '../../shared/rate-limit/limits';
import { consumeRateLimit } from '../../shared/rate-limit/rate-limit';
import { SlidingLog } from '../../test/area-a/support/sliding-log';
import type { BenchCredential, BenchData } from '../lib/bench-seed';
import type { SectionContext } from '../lib/context';
import { round } from '../lib/stats';

/** One HTTP burst's figures. */
export interface BurstFigures {
  /** Where the burst was sent: `any clock position` or `straddling a 10-second mark`. */
  position: string;
  concurrent: number;
  admitted: number;
  statusCounts: Record<string, number>;
  /** From sending the first request to the last answer. */
  ms: number;
}

/** The domain run's figures. */
export interface ArrivalFigures {
  arrivals: number;
  admitted: number;
  refusedByCode: Record<string, number>;
  /** Trailing windows holding more than their limit (target 0). */
  violations: number;
  /** Synthetic time the arrivals span (hours). */
  hours: number;
  /** DynamoDB calls per request (admitted and refused), and of those the UpdateItem calls (tries, failed ones included). */
  callsPerRequest: number;
  writesPerRequest: number;
  seed: number;
  ms: number;
}

/** The section's figures. */
export interface RateLimiterResult {
  bursts: BurstFigures[];
  arrivals?: ArrivalFigures;
}

const windowMs = 10_000;

const sendBurst = async (url: string, headers: Record<string, string>, concurrent: number, position: string): Promise<BurstFigures> => {
  const started = performance.now();
  const statuses = await Promise.all(
    Array.from({ length: concurrent }, async () => {
      try {
        const response = await fetch(url, { headers });
        await response.arrayBuffer();
        return String(response.status);
      } catch (error) {
        return `error: ${(error as Error).message}`;
      }
    }),
  );
  const statusCounts: Record<string, number> = {};
  for (const status of statuses) statusCounts[status] = (statusCounts[status] ?? 0) + 1;
  return { position, concurrent, admitted: statusCounts['200'] ?? 0, statusCounts, ms: round(performance.now() - started, 1) };
};

/** A small seeded PRNG (mulberry32), so a run's arrival schedule can be repeated. */
const seededRandom = (seed: number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};

/** 10,000 arrivals of one caller on a synthetic clock, checked against the sliding log. */
const runArrivals = async (endpoint: string, region: string, tableName: string, total: number, seed: number): Promise<ArrivalFigures> => {
  const client = new DynamoDBClient({ endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const db = DynamoDBDocumentClient.from(client);
  const counter = countCalls(db);
  const random = seededRandom(seed);
  const oracle = new SlidingLog(windowLimits);
  const userId = `bench-arrivals-${randomUUID()}`;
  const start = Date.UTC(2026, 10, 20, 9, 0, 0) + Math.floor(random() * 3_600_000);
  let time = start;
  let sent = 0;
  let admitted = 0;
  let writes = 0;
  const refusedByCode: Record<string, number> = {};
  const started = performance.now();
  try {
    while (sent < total) {
      const burst = random() < 0.3;
      let times: number[];
      if (burst) {
        // Concurrent requests on both sides of the next 10-second mark.
        const mark = (Math.floor(time / windowMs) + 1) * windowMs;
        const size = Math.min(total - sent, 5 + Math.floor(random() * 56));
        times = Array.from({ length: size }, () => mark - 200 + Math.floor(random() * 400));
        time = mark + 200;
      } else {
        // The first 60 % close together (the hour's limit binds within about half an hour); then
        // now and then a pause of up to 10 minutes, so the run spans hours and the hour's slots
        // leave the window and are taken again.
        const pause = sent > total * 0.6 && random() < 0.15;
        time += pause ? 10_000 + Math.floor(random() * 590_000) : Math.floor(random() * 3_000);
        times = [time];
      }
      const outcomes = await Promise.all(
        times.map(async (now) => ({
          now,
          outcome: await consumeRateLimit({ db, tableName, now: () => now }, { userId, customerId: 'bench', list: false }),
        })),
      );
      for (const { now, outcome } of outcomes) {
        sent += 1;
        if (outcome.rejection) refusedByCode[outcome.rejection.code] = (refusedByCode[outcome.rejection.code] ?? 0) + 1;
        else {
          admitted += 1;
          oracle.admit(now, false);
        }
      }
    }
    writes = counter.calls.filter((call) => call.command === 'UpdateItemCommand').length;
  } finally {
    counter.detach();
    client.destroy();
  }
  return {
    arrivals: sent,
    admitted,
    refusedByCode,
    violations: oracle.violations().length,
    hours: round((time - start) / 3_600_000, 2),
    callsPerRequest: round(counter.calls.length / sent, 2),
    writesPerRequest: round(writes / sent, 2),
    seed,
    ms: Math.round(performance.now() - started),
  };
};

/** Runs section 6 and records its targets. */
export const runRateLimiter = async (
  context: SectionContext,
  input: {
    baseUrl: string;
    data: BenchData;
    credentials: [BenchCredential, BenchCredential];
    concurrent: number;
    dynamodb: { endpoint: string; region: string; tableName: string };
    arrivals: number;
  },
): Promise<RateLimiterResult | undefined> => {
  const { baseUrl, data, credentials, concurrent } = input;
  if (!routes.some((route) => route.name === 'get-sim')) {
    context.targets.skip({ section: '6 rate limiter', id: 'rate-limit-burst', subject: 'get-sim', target: 'exactly 10 admitted', reason: 'the route table has no get-sim route yet' });
    return undefined;
  }
  const url = `${baseUrl}/developer/api/sims/${data.bench.simIds[2]}/`;
  const headersOf = (credential: BenchCredential) => ({ Authorization: `Bearer ${credential.bearerToken}`, 'X-Customer-API-Key': credential.apiKey });

  context.log(`rate limiter: ${concurrent} concurrent requests of one developer, at any clock position`);
  const bursts = [await sendBurst(url, headersOf(credentials[0]), concurrent, 'any clock position')];
  context.log(`rate limiter: ${concurrent} concurrent requests straddling a 10-second mark`);
  const toMark = windowMs - (Date.now() % windowMs);
  await new Promise((resolve) => setTimeout(resolve, toMark < 100 ? toMark + windowMs - 30 : toMark - 30));
  bursts.push(await sendBurst(url, headersOf(credentials[1]), concurrent, 'straddling a 10-second mark'));
  for (const burst of bursts) {
    context.targets.check({
      section: '6 rate limiter', id: `rate-limit-burst-${burst.position.startsWith('any') ? 'any' : 'edge'}`, subject: 'get-sim',
      target: `exactly 10 of ${concurrent} concurrent admitted, ${burst.position}`,
      actual: `${burst.admitted} admitted in ${burst.ms} ms (${Object.entries(burst.statusCounts).map(([status, count]) => `${count} × ${status}`).join(', ')})`,
      met: burst.admitted === 10,
    });
  }

  context.log(`rate limiter: ${input.arrivals} arrivals on a synthetic clock against the sliding-log oracle`);
  const seed = Math.floor(Math.random() * 2 ** 31);
  const arrivals = await runArrivals(input.dynamodb.endpoint, input.dynamodb.region, input.dynamodb.tableName, input.arrivals, seed);
  context.targets.check({
    section: '6 rate limiter', id: 'rate-limit-trailing-windows', subject: 'limiter',
    target: `0 trailing-window violations over ${input.arrivals} arrivals`,
    actual: `${arrivals.violations} violations; ${arrivals.admitted} admitted over ${arrivals.hours} synthetic hours ` +
      `(${Object.entries(arrivals.refusedByCode).map(([code, count]) => `${count} × ${code}`).join(', ')}); ` +
      `${arrivals.callsPerRequest} DynamoDB calls per request (${arrivals.writesPerRequest} UpdateItem); seed ${arrivals.seed}`,
    met: arrivals.violations === 0 && arrivals.arrivals === input.arrivals,
  });
  return { bursts, arrivals };
};
