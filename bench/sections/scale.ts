/**
 * Section 5, scale (issue #19, point 6): list pages (A1) of a customer group of 100,000 SIMs
 * (`--scale 1000000`: a million) over sub-customers three levels deep, the day after a usage
 * run that updated every SIM: for the first, a middle, the last and a beyond-the-end page of
 * every filter of the spec and their combinations, the sequential round trips, the read units
 * (DynamoDB's ReturnConsumedCapacity), p50, p99 and the slowest sample, the handler invoked in
 * this process. Each request comes from a developer that has not listed yet (one list per 5 s
 * per developer). Targets: at most 4 round trips, 120 read units and a p99 of 250 ms (100
 * samples a case: a p99 of fewer is the slowest sample, whatever the machine did then).
 */
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { billedReadUnits, roundTrips } from '../../shared/db/call-counter';
import { routes } from '../../shared/topology/routes';
import type { BenchData } from '../lib/bench-seed';
import { timeInCalls, type CallRecorder } from '../lib/call-recorder';
import type { SectionContext } from '../lib/context';
import { invokeRoute, requestFor, type CredentialPool, type RequestState } from '../lib/requests';
import { scaleSectionLabel, type ScaleFleet } from '../lib/scale-fleet';
import { median, percentile, round } from '../lib/stats';

/** One list case at scale. */
export interface ScaleFigure {
  case: string;
  query: string;
  count?: number;
  results?: number;
  samples: number;
  /** Worst case over the samples. */
  roundTrips: number;
  calls: number;
  /** Read units of the request (every read call, authentication included), worst case over the samples. */
  readUnits: number;
  p50: number;
  /** Nearest rank: with 100 samples the 99th slowest, so one stray sample does not decide it. */
  p99: number;
  /** How many samples took longer than the 250 ms target. */
  overTarget?: number;
  /** Where the slowest sample's time went: in DynamoDB calls or in this process, and the machine's major page faults meanwhile. */
  slowest?: SlowSample;
  note?: string;
}

/** The slowest sample of a case, taken apart. */
export interface SlowSample {
  at: string;
  ms: number;
  /** Time with at least one DynamoDB call in flight. */
  inCallsMs: number;
  /** The longest call, e.g. `Query 3412 ms`. */
  longestCall: string;
  /** Major page faults of the whole machine during the sample (/proc/vmstat; absent elsewhere than Linux). */
  majorFaults?: number;
  /** This process's garbage collections during the sample: their time in all and the longest (ms). */
  gcMs?: number;
  longestGcMs?: number;
  /** The longest this process's event loop was held during the sample (ms; 10 ms resolution). */
  loopHeldMs?: number;
}

/**
 * This process's garbage collections as they happen (perf_hooks `gc` entries), and its event
 * loop's delay: the handler, the local runtime's stream reader and consumers and the recorder
 * share this process, so a pause of the process shows in a sample as a slow DynamoDB call.
 */
const processPauses = () => {
  const collections: { start: number; duration: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) collections.push({ start: entry.startTime, duration: entry.duration });
  });
  observer.observe({ entryTypes: ['gc'] });
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  return {
    /** Starts a sample: the loop's longest delay counts from now. */
    start: () => loop.reset(),
    /** The longest delay of the loop since start (ms). */
    loopHeldMs: () => round(loop.max / 1e6, 1),
    /** The collections that began between two instants (performance.now()). */
    between: async (from: number, to: number) => {
      await new Promise((resolve) => setImmediate(resolve));
      const within = collections.filter((gc) => gc.start >= from && gc.start <= to);
      return { gcMs: round(within.reduce((sum, gc) => sum + gc.duration, 0), 1), longestGcMs: round(Math.max(0, ...within.map((gc) => gc.duration)), 1) };
    },
    stop: () => {
      observer.disconnect();
      loop.disable();
    },
  };
};

/** The machine's major page faults so far (Linux), to tell a stall of the machine from one of the code. */
const majorFaults = (): number | undefined => {
  try {
    return Number(/^pgmajfault (\d+)$/m.exec(readFileSync('/proc/vmstat', 'utf8'))?.[1]);
  } catch {
    return undefined;
  }
};

/** The p99 target, ms. */
const p99TargetMs = 250;

const readCommands = /^(Get|Query|BatchGet)(Item)?Command$/;

/** The filters of the spec and their combinations, as query strings, over the fleet. */
const filtersOf = (fleet: ScaleFleet): { name: string; filter: string }[] => {
  const iso = (epochMs: number) => encodeURIComponent(new Date(epochMs).toISOString());
  const yesterday = `updated_after=${iso(fleet.runStart - 86_400_000)}`;
  const midRun = `updated_after=${iso(Math.floor((fleet.runStart + fleet.runEnd) / 2))}`;
  const site = `customer=${encodeURIComponent('Scale North A')}`;
  const region = `customer=${encodeURIComponent('Scale North')}`;
  return [
    { name: 'no filter', filter: '' },
    { name: 'status=suspended', filter: 'status=suspended' },
    { name: 'customer (a site)', filter: site },
    { name: 'customer (a region)', filter: region },
    { name: 'updated_after=yesterday (the whole fleet)', filter: yesterday },
    { name: 'updated_after=mid-run', filter: midRun },
    { name: 'status + customer', filter: `status=active&${site}` },
    { name: 'status + updated_after', filter: `status=suspended&${midRun}` },
    { name: 'customer + updated_after', filter: `${region}&${yesterday}` },
    { name: 'status + customer + updated_after', filter: `status=active&${site}&${midRun}` },
  ];
};

/** Runs section 5 and records its targets. */
export const runScale = async (
  context: SectionContext,
  input: { root: string; data: BenchData; fleet: ScaleFleet; pool: CredentialPool; recorder: CallRecorder; state: RequestState; samples: number; pageSize: number },
): Promise<ScaleFigure[]> => {
  const { root, data, fleet, pool, recorder, state } = input;
  const listRoute = routes.find((route) => route.name === 'list-sims');
  if (!listRoute) {
    context.notes.push('Scale not measured: the route table has no list-sims route yet.');
    return [];
  }
  const cases = filtersOf(fleet).flatMap((entry) =>
    (['first', 'middle', 'last', 'beyond'] as const).map((page) => ({ ...entry, page })),
  );
  context.log(`scale: ${cases.length} list cases over ${fleet.sims} SIMs, ${input.samples} samples each`);
  const figures: ScaleFigure[] = [];
  const pauses = processPauses();
  for (const entry of cases) {
    // Calls are taken per sample (measure); the recorder's own list would only grow the heap.
    recorder.reset();
    const figure: ScaleFigure = { case: `${entry.name}, ${entry.page} page`, query: '', samples: 0, roundTrips: 0, calls: 0, readUnits: 0, p50: Number.NaN, p99: Number.NaN };
    figures.push(figure);
    const send = async (query: string) => {
      const request = requestFor(root, listRoute, data, state, { ...pool.fresh(), apiKey: fleet.apiKey });
      if ('skip' in request) throw new Error(request.skip);
      return invokeRoute({ ...request, query });
    };
    try {
      const probe = await send([entry.filter, `page_size=${input.pageSize}`].filter(Boolean).join('&'));
      if (probe.status !== 200) throw new Error(`the first page answered ${probe.status} ${probe.body.slice(0, 160)}`);
      const totalPages = (JSON.parse(probe.body) as { total_pages: number }).total_pages;
      const page = { first: 1, middle: Math.max(1, Math.ceil(totalPages / 2)), last: Math.max(1, totalPages), beyond: totalPages + 1 }[entry.page];
      figure.query = [entry.filter, `page=${page}`, `page_size=${input.pageSize}`].filter(Boolean).join('&');
      const times: number[] = [];
      let slowestSpan: { from: number; to: number } | undefined;
      for (let sample = 0; sample < input.samples; sample += 1) {
        const faultsBefore = majorFaults();
        pauses.start();
        const from = performance.now();
        const { value: answer, calls } = await recorder.measure(() => send(figure.query));
        if (answer.status !== 200) throw new Error(`answered ${answer.status} ${answer.body.slice(0, 160)}`);
        times.push(answer.ms);
        if (answer.ms > (figure.slowest?.ms ?? 0)) {
          const longest = [...calls].sort((left, right) => right.endedAt - right.startedAt - (left.endedAt - left.startedAt))[0];
          const faultsAfter = majorFaults();
          figure.slowest = {
            at: new Date().toISOString(),
            ms: round(answer.ms, 1),
            inCallsMs: round(timeInCalls(calls), 1),
            longestCall: longest ? `${longest.command.replace(/Command$/, '')} ${round(longest.endedAt - longest.startedAt, 1)} ms` : 'none',
            ...(faultsBefore === undefined || faultsAfter === undefined ? {} : { majorFaults: faultsAfter - faultsBefore }),
            loopHeldMs: pauses.loopHeldMs(),
          };
          slowestSpan = { from, to: performance.now() };
        }
        const body = JSON.parse(answer.body) as { count: number; results: unknown[] };
        figure.count = body.count;
        figure.results = body.results.length;
        figure.roundTrips = Math.max(figure.roundTrips, roundTrips(calls));
        figure.calls = Math.max(figure.calls, calls.length);
        const units = calls.filter((call) => readCommands.test(call.command)).reduce((sum, call) => sum + billedReadUnits(call), 0);
        figure.readUnits = Math.max(figure.readUnits, units);
      }
      if (figure.slowest && slowestSpan) Object.assign(figure.slowest, await pauses.between(slowestSpan.from, slowestSpan.to));
      figure.samples = times.length;
      figure.p50 = round(median(times), 1);
      figure.p99 = round(percentile(times, 99), 1);
      figure.overTarget = times.filter((ms) => ms > p99TargetMs).length;
    } catch (error) {
      figure.note = `failed: ${(error as Error).message}`;
    }
  }
  pauses.stop();
  recordScaleTargets(context, figures, fleet);
  return figures;
};

/** The slowest sample in words: its time, how much of it DynamoDB calls took, the machine's page faults. */
const slowestText = (slowest: SlowSample | undefined): string =>
  slowest === undefined
    ? ''
    : `; slowest ${slowest.ms} ms at ${slowest.at.slice(11, 19)}, ${slowest.inCallsMs} ms of it in calls (longest ${slowest.longestCall})` +
      (slowest.majorFaults === undefined ? '' : `, ${slowest.majorFaults} major page faults meanwhile`) +
      (slowest.gcMs === undefined ? '' : `; this process: ${slowest.gcMs} ms of garbage collection (longest ${slowest.longestGcMs} ms), event loop held up to ${slowest.loopHeldMs} ms`);

const recordScaleTargets = (context: SectionContext, figures: ScaleFigure[], fleet: ScaleFleet): void => {
  const { sims } = fleet;
  const section = scaleSectionLabel(sims, fleet.door, fleet.order);
  for (const figure of figures) {
    const subject = `${figure.case} (${sims.toLocaleString('en-GB')} SIMs)`;
    const checks = [
      { id: 'scale-round-trips', target: '≤ 4 sequential round trips', actual: `${figure.roundTrips} round trips (${figure.calls} calls)`, met: figure.roundTrips <= 4 },
      { id: 'scale-read-units', target: '≤ 120 read units', actual: `${figure.readUnits} read units`, met: figure.readUnits <= 120 },
      {
        id: 'scale-p99',
        target: `p99 ≤ ${p99TargetMs} ms (in-process handler, DynamoDB Local)`,
        actual: `p99 ${figure.p99} ms, p50 ${figure.p50} ms; ${figure.overTarget} of ${figure.samples} over ${p99TargetMs} ms${slowestText(figure.slowest)}`,
        met: figure.p99 <= p99TargetMs,
      },
    ];
    for (const check of checks) {
      if (figure.note || figure.samples === 0) context.targets.skip({ section, id: check.id, subject, target: check.target, reason: figure.note ?? 'no samples' });
      else context.targets.check({ section, subject, ...check });
    }
  }
};
