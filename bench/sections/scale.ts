/**
 * Section 5, scale: list pages (A1) of a customer group with 20,000 SIMs in its scope, first,
 * middle and last page, and a page of each filter (status, customer, updated_after), 100 SIMs
 * per page: sequential round trips, calls, items read (scope items scanned and returned by
 * the Queries; full SIM items returned by the BatchGetItem) and p50. Each request comes from a
 * developer that has not listed yet (the minimum poll interval is 5 s per developer).
 */
import { routes } from '../../shared/topology/routes';
import type { BenchData } from '../lib/bench-seed';
import { roundTrips } from '../../shared/db/call-counter';
import { listReadProblems, type CallRecorder } from '../lib/call-recorder';
import type { SectionContext } from '../lib/context';
import { invokeRoute, requestFor, type CredentialPool, type RequestState } from '../lib/requests';
import { median, round } from '../lib/stats';

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
  /** sim_scope items evaluated by the Queries (ScannedCount) and returned by them (Count). */
  scopeItemsScanned: number;
  scopeItemsReturned: number;
  /** Full SIM items read (BatchGetItem / GetItem of SIM# items). */
  simItemsRead: number;
  p50: number;
  problems: string[];
  note?: string;
}

interface Case {
  name: string;
  /** The filter part of the query string. */
  filter: string;
  /** Which page: computed from the first answer's total_pages. */
  page: 'first' | 'middle' | 'last';
}

const pageSize = 100;

/** Runs section 5 and records its targets. */
export const runScale = async (
  context: SectionContext,
  input: { root: string; data: BenchData; pool: CredentialPool; recorder: CallRecorder; state: RequestState; samples: number },
): Promise<ScaleFigure[]> => {
  const { root, data, pool, recorder, state } = input;
  const listRoute = routes.find((route) => route.name === 'list-sims');
  if (!listRoute) {
    context.notes.push('Scale not measured: the route table has no list-sims route yet.');
    return [];
  }
  const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000).toISOString();
  const cases: Case[] = [
    { name: 'first page', filter: '', page: 'first' },
    { name: 'middle page', filter: '', page: 'middle' },
    { name: 'last page', filter: '', page: 'last' },
    { name: 'status=active, last page', filter: 'status=active', page: 'last' },
    { name: `customer=${data.scale.name} (the group itself), last page`, filter: `customer=${encodeURIComponent(data.scale.name)}`, page: 'last' },
    { name: `customer=${data.scale.subCustomerName} (sub-customer), last page`, filter: `customer=${encodeURIComponent(data.scale.subCustomerName)}`, page: 'last' },
    { name: 'updated_after=3 days ago, last page', filter: `updated_after=${encodeURIComponent(threeDaysAgo)}`, page: 'last' },
  ];
  context.log(`scale: ${cases.length} list cases over ${data.scale.sims} SIMs, ${input.samples} samples each`);
  const figures: ScaleFigure[] = [];
  for (const entry of cases) {
    const figure: ScaleFigure = {
      case: entry.name, query: '', samples: 0, roundTrips: 0, calls: 0, scopeItemsScanned: 0, scopeItemsReturned: 0, simItemsRead: 0, p50: Number.NaN, problems: [],
    };
    figures.push(figure);
    const send = async (query: string) => {
      const request = requestFor(root, listRoute, data, state, pool.fresh());
      if ('skip' in request) throw new Error(request.skip);
      return invokeRoute({ ...request, query });
    };
    try {
      const probe = await send([entry.filter, `page_size=${pageSize}`].filter(Boolean).join('&'));
      if (probe.status !== 200) throw new Error(`the first page answered ${probe.status} ${probe.body.slice(0, 160)}`);
      const totalPages = (JSON.parse(probe.body) as { total_pages: number }).total_pages;
      const page = entry.page === 'first' ? 1 : entry.page === 'middle' ? Math.max(1, Math.ceil(totalPages / 2)) : Math.max(1, totalPages);
      figure.query = [entry.filter, `page=${page}`, `page_size=${pageSize}`].filter(Boolean).join('&');
      const times: number[] = [];
      for (let sample = 0; sample < input.samples; sample += 1) {
        const { value: answer, calls } = await recorder.measure(() => send(figure.query));
        if (answer.status !== 200) throw new Error(`answered ${answer.status} ${answer.body.slice(0, 160)}`);
        times.push(answer.ms);
        const body = JSON.parse(answer.body) as { count: number; results: unknown[] };
        figure.count = body.count;
        figure.results = body.results.length;
        figure.roundTrips = Math.max(figure.roundTrips, roundTrips(calls));
        figure.calls = Math.max(figure.calls, calls.length);
        const queries = calls.filter((call) => call.command === 'QueryCommand' && !(call.input as { IndexName?: string }).IndexName);
        figure.scopeItemsScanned = queries.reduce((sum, call) => sum + call.itemsScanned, 0);
        figure.scopeItemsReturned = queries.reduce((sum, call) => sum + call.itemsReturned, 0);
        figure.simItemsRead = Math.max(figure.simItemsRead, calls.reduce((sum, call) => sum + call.simItemsRead, 0));
        for (const problem of listReadProblems(calls, body.results.length)) if (!figure.problems.includes(problem)) figure.problems.push(problem);
      }
      figure.samples = times.length;
      figure.p50 = round(median(times), 1);
    } catch (error) {
      figure.note = `failed: ${(error as Error).message}`;
    }
  }
  recordScaleTargets(context, figures);
  return figures;
};

const recordScaleTargets = (context: SectionContext, figures: ScaleFigure[]): void => {
  const section = '5 scale';
  for (const figure of figures) {
    if (figure.note || figure.samples === 0) {
      context.targets.skip({ section, id: 'scale-round-trips', subject: figure.case, target: '≤ 5 sequential round trips', reason: figure.note ?? 'no samples' });
      continue;
    }
    context.targets.check({
      section, id: 'scale-round-trips', subject: figure.case, target: '≤ 5 sequential round trips',
      actual: `${figure.roundTrips} round trips (${figure.calls} calls)`, met: figure.roundTrips <= 5,
    });
    context.targets.check({
      section, id: 'scale-full-reads', subject: figure.case, target: `full SIM items read = SIMs returned`,
      actual: `${figure.simItemsRead} read, ${figure.results} returned`,
      met: figure.problems.length === 0 && figure.simItemsRead === figure.results, evidence: figure.problems.join('; '),
    });
  }
};
