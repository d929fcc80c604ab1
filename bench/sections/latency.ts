/**
 * Section 3, latency: warm in-process p50 and p99 of each Area A route (its handler invoked in
 * this process, as the local gateway does, against DynamoDB Local), beside the p50 of a raw
 * GetItem through the same document client. Samples are interleaved (one GetItem, then one
 * request of each route, round after round) so that a busy moment hits every figure alike.
 * Every request is sent by a developer with rate-limit budget (CredentialPool: 9 requests per
 * developer, a fresh developer for every list request), so the success path is measured.
 * Then get-sim over HTTP beside the one-call baseline (./latency-http.ts).
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { allRoutes } from '../../shared/topology/routes';
import { key } from '../../shared/db/keys';
import type { BenchData } from '../lib/bench-seed';
import { timeInCalls, type CallRecorder } from '../lib/call-recorder';
import type { SectionContext } from '../lib/context';
import { invokeRoute, isListRoute, rememberCreated, requestFor, type CredentialPool, type RequestState } from '../lib/requests';
import { median, percentile, round } from '../lib/stats';
import { measureAgainstOneCall, type HttpLatencyResult } from './latency-http';
import type { RoundTripFigure } from './round-trips';

/** One Area A route's latency. */
export interface LatencyFigure {
  route: string;
  samples: number;
  p50: number;
  p99: number;
  /** Answers that were not the success path (should be 0). */
  unexpected: number;
  /** Sequential round trips of its success path (section 2). */
  roundTrips?: number;
  /** Median time with a DynamoDB call in flight, and median of the rest (the handler's own work). */
  inDynamoDbP50: number;
  ownP50: number;
  /** Median duration of each kind of call it makes (ms), e.g. `{ UpdateItem: 3.1 }`. */
  callP50: Record<string, number>;
  note?: string;
}

/** The section's figures. */
export interface LatencyResult {
  getItem: { samples: number; p50: number; p99: number };
  routes: LatencyFigure[];
  /** get-sim over HTTP through the gateway beside the one-call baseline (absent: not measured, see `httpNote`). */
  http?: HttpLatencyResult;
  httpNote?: string;
}

/** Runs section 3 and records its targets. */
export const runLatency = async (
  context: SectionContext,
  input: {
    root: string; data: BenchData; pool: CredentialPool; recorder: CallRecorder; state: RequestState; db: DynamoDBDocumentClient;
    tableName: string; roundTrips: RoundTripFigure[]; samples: number; warmup: number;
    /** The local gateway (serving the one-call baseline's route too). */
    baseUrl: string;
  },
): Promise<LatencyResult> => {
  const { root, data, pool, state, db, tableName } = input;
  const routes = allRoutes().filter((route) => route.area === 'developer');
  const credentialFor = routes.map(() => pool.budgeted());
  const figures = routes.map((route) => ({
    route: route.name, unexpected: 0, note: undefined as string | undefined,
    times: [] as number[], inDynamoDb: [] as number[], own: [] as number[], byCommand: new Map<string, number[]>(),
  }));
  const getItemTimes: number[] = [];
  const simKey = key.sim(data.bench.simIds[0]!);
  context.log(`latency: ${input.samples} samples of ${routes.length} Area A routes and of GetItem, interleaved`);
  for (let round = 0; round < input.warmup + input.samples; round += 1) {
    const measuring = round >= input.warmup;
    const started = performance.now();
    await db.send(new GetCommand({ TableName: tableName, Key: simKey }));
    if (measuring) getItemTimes.push(performance.now() - started);
    for (const [index, route] of routes.entries()) {
      const figure = figures[index]!;
      if (figure.note) continue;
      const request = requestFor(root, route, data, state, credentialFor[index]!(isListRoute(route)));
      if ('skip' in request) {
        figure.note = `not measured: ${request.skip}`;
        continue;
      }
      try {
        const { value: answer, calls } = await input.recorder.measure(() => invokeRoute(request));
        rememberCreated(state, answer);
        if (!measuring) continue;
        figure.times.push(answer.ms);
        const inDynamoDb = timeInCalls(calls);
        figure.inDynamoDb.push(inDynamoDb);
        figure.own.push(answer.ms - inDynamoDb);
        for (const call of calls) {
          const name = call.command.replace(/Command$/, '');
          figure.byCommand.set(name, [...(figure.byCommand.get(name) ?? []), call.endedAt - call.startedAt]);
        }
        if (!request.expected(answer.status)) figure.unexpected += 1;
      } catch (error) {
        figure.note = `failed: ${(error as Error).message}`;
      }
    }
    input.recorder.reset();
  }
  const getItem = { samples: getItemTimes.length, p50: round(median(getItemTimes), 2), p99: round(percentile(getItemTimes, 99), 2) };
  const result: LatencyResult = {
    getItem,
    routes: figures.map(({ times, inDynamoDb, own, byCommand, ...figure }) => ({
      ...figure,
      samples: times.length,
      p50: round(median(times), 2),
      p99: round(percentile(times, 99), 2),
      roundTrips: input.roundTrips.find((trip) => trip.route === figure.route)?.success?.roundTrips,
      inDynamoDbP50: round(median(inDynamoDb), 2),
      ownP50: round(median(own), 2),
      callP50: Object.fromEntries([...byCommand].map(([name, durations]) => [name, round(median(durations), 2)])),
    })),
  };
  context.log(`latency: ${input.samples} rounds of get-sim and of the one-call baseline over HTTP through the gateway`);
  try {
    result.http = await measureAgainstOneCall({ baseUrl: input.baseUrl, pool, simId: data.bench.simIds[0]!, samples: input.samples, warmup: input.warmup });
  } catch (error) {
    result.httpNote = `failed: ${(error as Error).message}`;
  }
  input.recorder.reset();
  recordLatencyTargets(context, result);
  return result;
};

/** Whether the route's success path was measured at all. */
const measured = (figure: LatencyFigure): boolean => figure.samples > 0 && !figure.note;

const recordLatencyTargets = (context: SectionContext, result: LatencyResult): void => {
  const section = '3 latency';
  for (const figure of result.routes) {
    if (!measured(figure)) {
      context.notes.push(`Latency of ${figure.route} not measured: ${figure.note ?? 'no samples'}.`);
      continue;
    }
    const breakdown =
      `p50 split: ${figure.inDynamoDbP50} ms with a DynamoDB call in flight (call p50s: ` +
      `${Object.entries(figure.callP50).map(([name, ms]) => `${name} ${ms}`).join(', ')}; raw GetItem ${result.getItem.p50}), ` +
      `${figure.ownP50} ms in the handler itself`;
    const evidence = [breakdown, figure.unexpected > 0 ? `${figure.unexpected} of ${figure.samples} answers were not the success path` : '']
      .filter(Boolean)
      .join('; ');
    if (figure.roundTrips !== undefined) {
      const limit = figure.roundTrips * result.getItem.p50 + 1;
      context.targets.check({
        section, id: 'latency-p50', subject: figure.route,
        target: `≤ ${figure.roundTrips} round trips × GetItem p50 ${result.getItem.p50} ms + 1 ms = ${round(limit, 2)} ms`,
        actual: `${figure.p50} ms`, met: figure.p50 <= limit, evidence,
      });
    } else {
      context.targets.skip({ section, id: 'latency-p50', subject: figure.route, target: '≤ round trips × GetItem p50 + 1 ms', reason: 'its round trips were not measured' });
    }
    context.targets.check({ section, id: 'latency-p99', subject: figure.route, target: '< 20 ms', actual: `${figure.p99} ms`, met: figure.p99 < 20, evidence });
  }
  const { http } = result;
  if (!http || http.getSim.samples === 0 || http.getSim.unexpected > 0 || http.oneCall.unexpected > 0) {
    const reason = http
      ? `answers other than 200: get-sim ${http.getSim.unexpected}, one-call ${http.oneCall.unexpected} of ${http.getSim.samples}`
      : (result.httpNote ?? 'not measured');
    context.targets.skip({ section, id: 'latency-vs-one-call', subject: 'get-sim', target: 'HTTP p50 ≤ 2 × the one-call baseline\'s', reason });
    return;
  }
  const getSim = result.routes.find((figure) => figure.route === 'get-sim');
  context.targets.check({
    section, id: 'latency-vs-one-call', subject: 'get-sim',
    target: `HTTP p50 ≤ 2 × one-call p50 ${http.oneCall.p50} ms = ${round(2 * http.oneCall.p50, 2)} ms`,
    actual: `${http.getSim.p50} ms (${http.ratio} ×)`,
    met: http.getSim.p50 <= 2 * http.oneCall.p50,
    evidence: getSim && measured(getSim)
      ? `in process, get-sim makes ${getSim.roundTrips ?? '?'} sequential round trips; p50 split: ${getSim.inDynamoDbP50} ms with a DynamoDB call in flight, ${getSim.ownP50} ms in the handler itself`
      : '',
  });
};
