/**
 * Section 2, round trips: for every route of the route table, the DynamoDB calls one warm
 * request makes and how many sequential round trips they take (calls in flight together
 * count once; shared/db/call-counter.ts `roundTrips`), counted by a middleware on the
 * handlers' own document client, on the success path and, for Area A, on a 429 (the
 * developer's burst of 10 first used up by requests to the Area A fallback). A request's
 * calls are told apart from those of background work (queue consumers) by their asynchronous
 * context (CallRecorder.measure).
 */
import { allRoutes, developerFallbackRoute, type RouteDefinition } from '../../shared/topology/routes';
import type { BenchData } from '../lib/bench-seed';
import { roundTrips } from '../../shared/db/call-counter';
import { describeCall, isGuardCall, listReadProblems, type BenchCall, type CallRecorder } from '../lib/call-recorder';
import type { SectionContext } from '../lib/context';
import { invokeRoute, rememberCreated, requestFor, type CredentialPool, type RequestState } from '../lib/requests';

/** The calls of one measured request. */
export interface CallProfile {
  status: number;
  calls: number;
  roundTrips: number;
  /** Calls in start order, e.g. `BatchGetItem TOKEN#…,APIKEY#…`. */
  sequence: string[];
  /** Calls other than the Area A guard's authentication read and rate-limit update. */
  businessCalls: string[];
  /** A list answer: its number of results, and what it read beyond its needs (listReadProblems). */
  results?: number;
  listProblems?: string[];
}

/** One route's figures. */
export interface RoundTripFigure {
  route: string;
  area: string;
  method: string;
  path: string;
  success?: CallProfile;
  /** Area A only. */
  rateLimited?: CallProfile;
  /** Why the route (or its 429) was not measured, or what was odd about it. */
  note?: string;
}

const resultsOf = (body: string): number | undefined => {
  try {
    const parsed = JSON.parse(body) as { results?: unknown };
    return Array.isArray(parsed.results) ? parsed.results.length : undefined;
  } catch {
    return undefined;
  }
};

const profile = (answer: { status: number; body: string }, calls: BenchCall[]): CallProfile => {
  const results = answer.status === 200 ? resultsOf(answer.body) : undefined;
  return {
    status: answer.status,
    calls: calls.length,
    roundTrips: roundTrips(calls),
    sequence: calls.map(describeCall),
    businessCalls: calls.filter((call) => !isGuardCall(call)).map(describeCall),
    ...(results !== undefined ? { results, listProblems: listReadProblems(calls, results) } : {}),
  };
};

/** Runs section 2 and records its targets; `state` keeps what the requests created. */
export const runRoundTrips = async (
  context: SectionContext,
  input: { root: string; data: BenchData; pool: CredentialPool; recorder: CallRecorder; state: RequestState },
): Promise<RoundTripFigure[]> => {
  const { root, data, pool, recorder, state } = input;
  const figures: RoundTripFigure[] = [];
  for (const route of allRoutes()) {
    const figure: RoundTripFigure = { route: route.name, area: route.area, method: route.method, path: route.path };
    figures.push(figure);
    // A fresh developer for every request: the warm-up and the measured request of a list
    // would otherwise be refused by the minimum poll interval.
    const build = () => requestFor(root, route, data, state, route.area === 'developer' ? pool.fresh() : undefined);
    const warm = build();
    if ('skip' in warm) {
      figure.note = `not measured: ${warm.skip}`;
      context.notes.push(`Round trips of ${route.name} not measured: ${warm.skip}.`);
      continue;
    }
    try {
      // Warm-up: the module is imported and its clients built, as in a warm container.
      rememberCreated(state, await invokeRoute(warm));
      await recorder.settle(500);
      const measured = build();
      if ('skip' in measured) throw new Error(measured.skip);
      const { value: answer, calls } = await recorder.measure(() => invokeRoute(measured));
      figure.success = profile(answer, calls);
      rememberCreated(state, answer);
      if (!measured.expected(answer.status)) {
        figure.note = `answered ${answer.status} ${answer.body.slice(0, 120)}`;
      }
      await recorder.settle(500);
      if (route.area === 'developer') figure.rateLimited = await measureRateLimited(input, route);
    } catch (error) {
      figure.note = `failed: ${(error as Error).message}`;
    }
  }
  await recorder.settle(1_000);
  recordRoundTripTargets(context, figures);
  return figures;
};

/**
 * A 429 of `route`: a fresh developer's burst used up on the fallback (until the fallback
 * itself answers 429), then the route at once. The burst windows are aligned 10-second
 * windows, so a window may end in between: then it is tried again with another developer.
 */
const measureRateLimited = async (
  input: { root: string; data: BenchData; pool: CredentialPool; recorder: CallRecorder; state: RequestState },
  route: RouteDefinition,
): Promise<CallProfile> => {
  const { root, data, pool, recorder, state } = input;
  let last: CallProfile | undefined;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const credential = pool.fresh();
    const filler = requestFor(root, developerFallbackRoute, data, state, credential);
    if ('skip' in filler) throw new Error(`cannot use up a burst: ${filler.skip}`);
    for (let index = 0; index < 25; index += 1) {
      if ((await invokeRoute(filler)).status === 429) break;
    }
    const request = requestFor(root, route, data, state, credential);
    if ('skip' in request) throw new Error(request.skip);
    const { value: answer, calls } = await recorder.measure(() => invokeRoute(request));
    last = profile(answer, calls);
    if (answer.status === 429) return last;
  }
  return last!;
};

const recordRoundTripTargets = (context: SectionContext, figures: RoundTripFigure[]): void => {
  const section = '2 round trips';
  for (const figure of figures) {
    if (figure.area !== 'developer') continue;
    if (figure.route === 'get-sim') {
      if (figure.success && figure.success.status === 200) {
        context.targets.check({
          section, id: 'sim-read-calls', subject: figure.route, target: '≤ 4 calls in ≤ 2 sequential round trips',
          actual: `${figure.success.calls} calls, ${figure.success.roundTrips} round trips`,
          met: figure.success.calls <= 4 && figure.success.roundTrips <= 2, evidence: figure.success.sequence.join(' → '),
        });
      } else {
        context.targets.skip({ section, id: 'sim-read-calls', subject: figure.route, target: '≤ 4 calls in ≤ 2 round trips', reason: figure.note ?? 'no 200 answer' });
      }
    }
    // The SIM list's read plan (the list index's Queries, then one read of the page's SIMs); the webhook lists page no SIMs.
    if (figure.route === 'list-sims' && figure.success?.listProblems) {
      const sim = figures.find((other) => other.route === 'get-sim')?.success;
      context.targets.check({
        section, id: 'list-page-calls', subject: figure.route,
        target: `the SIM read's guard calls + the list index's Queries for count and offset + one read of the page's SIMs`,
        actual: `${figure.success.calls} calls, ${figure.success.roundTrips} round trips${sim ? ` (SIM read: ${sim.calls}, ${sim.roundTrips})` : ''}, ${figure.success.results} results`,
        met: figure.success.listProblems.length === 0, evidence: figure.success.listProblems.join('; '),
      });
    }
    if (figure.rateLimited) {
      const limited = figure.rateLimited;
      if (limited.status === 429) {
        context.targets.check({
          section, id: 'no-business-call-on-429', subject: figure.route, target: 'a 429 makes no business call',
          actual: limited.businessCalls.length === 0 ? 'none' : limited.businessCalls.join(', '),
          met: limited.businessCalls.length === 0, evidence: `calls: ${limited.sequence.join(' → ')}`,
        });
      } else {
        context.targets.skip({
          section, id: 'no-business-call-on-429', subject: figure.route, target: 'a 429 makes no business call',
          reason: `the request after a used-up burst answered ${limited.status}, not 429`,
        });
      }
    } else if (!figure.note?.startsWith('not measured')) {
      context.targets.skip({ section, id: 'no-business-call-on-429', subject: figure.route, target: 'a 429 makes no business call', reason: figure.note ?? 'not measured' });
    }
  }
};
