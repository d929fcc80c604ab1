import { allRoutes } from '../../../shared/topology/routes';
import type { SectionContext } from '../../lib/context';
import { coldCallOnce, lambdaVariables, type ColdCallSample, type ColdFunction } from '../../lib/cold-call';
import { startColdCallBackend, type ColdCallBackend } from '../../lib/cold-call-backend';
import { preparePeer, type PeerBundle } from '../../lib/peer';
import { CredentialPool, eventOf, rememberCreated, requestFor, type RequestState } from '../../lib/requests';
import { median, round } from '../../lib/stats';
import { countColdCallInstructionsOf } from './cold-call-instructions';
import { minimalName, type BundleFigure } from './figures';

/** Processes per Area A route (and the peer) for the time of the cold import plus first call. */
export const coldCallSamples = 11;

/** One cold process to run: the bundle, its event and function, its environment, and what a success looks like. */
export interface ColdInvocation {
  file: string;
  event: unknown;
  fn: ColdFunction;
  env: Record<string, string>;
  expected: (status: number) => boolean;
}

/** A function's memory and timeout when its route names none (RouteDefinition's defaults, the stack's). */
const routeDefaults = { memoryMb: 1024, timeoutSeconds: 10 };

const isAreaA = (figure: BundleFigure): boolean => figure.kind === 'route' && figure.group === 'developer';

/**
 * The cold import plus first call of the Area A routes, the minimal handler (its share is
 * Node's start and the child's own script, taken off every other figure) and the peer: one
 * warm-up process each (file cache; it also makes the message and the webhook subscription
 * that later requests name), then `coldCallSamples` rounds over all of them in route-table
 * order (create-webhook before the routes that read its subscription, delete-webhook last),
 * then one process each under callgrind, two at a time, each with a subscription of its own
 * to read or delete. Every request is sent by a developer who has sent none (bench seed).
 */
export const measureColdCalls = async (
  context: SectionContext,
  figures: BundleFigure[],
  files: Map<string, string>,
  options: { instructions: boolean; peer?: PeerBundle },
): Promise<void> => {
  const root = process.cwd();
  const routes = new Map(allRoutes().map((route) => [route.name, route]));
  const minimal = figures.find((figure) => figure.name === minimalName);
  const peer = options.peer ? figures.find((figure) => figure.kind === 'peer' && !figure.error) : undefined;
  const subjects = [
    ...(minimal && files.has(minimal.name) && !minimal.error ? [minimal] : []),
    ...figures.filter((figure) => isAreaA(figure) && files.has(figure.name) && !figure.error && routes.has(figure.name)),
    ...(peer ? [peer] : []),
  ];
  if (subjects.length === 0) return;
  const started = performance.now();
  let backend: ColdCallBackend;
  try {
    backend = await startColdCallBackend(root, subjects.length * (coldCallSamples + 4) + 10);
  } catch (error) {
    context.notes.push(`Cold import plus first call not measured: the backend (DynamoDB Local) did not start: ${(error as Error).message}.`);
    return;
  }
  try {
    const peerEnv = options.peer ? await preparePeer(backend.client, { endpoint: backend.dynamodbEndpoint, trustedCa: backend.trustedCa }, options.peer) : {};
    const pool = new CredentialPool(backend.data.bench.credentials, 'bench');
    const getSim = routes.get('get-sim')!;
    const invocation = (figure: BundleFigure, state: RequestState): ColdInvocation | { skip: string } => {
      const file = files.get(figure.name)!;
      if (figure.kind === 'peer') {
        const { event, function: fn } = options.peer!;
        return { file, event, fn, env: { ...lambdaVariables(fn), ...peerEnv }, expected: (status) => status === 200 };
      }
      const route = figure === minimal ? getSim : routes.get(figure.name)!;
      const request = requestFor(root, route, backend.data, state, pool.fresh());
      if ('skip' in request) return request;
      const fn = figure === minimal
        ? { name: 'minimal-handler', memoryMb: routeDefaults.memoryMb, timeoutSeconds: routeDefaults.timeoutSeconds }
        : { name: route.name, memoryMb: route.memoryMb ?? routeDefaults.memoryMb, timeoutSeconds: route.timeoutSeconds ?? routeDefaults.timeoutSeconds };
      return { file, event: eventOf(request), fn, env: { ...lambdaVariables(fn), ...backend.env }, expected: request.expected };
    };

    const state: RequestState = {};
    const samples = new Map(subjects.map((figure) => [figure.name, [] as ColdCallSample[]]));
    const problems = new Map<string, { unexpected: number; status?: number | null; note?: string }>(subjects.map((figure) => [figure.name, { unexpected: 0 }]));
    const runOne = async (figure: BundleFigure, keep: boolean): Promise<void> => {
      const problem = problems.get(figure.name)!;
      const next = invocation(figure, state);
      if ('skip' in next) {
        problem.note ??= next.skip;
        return;
      }
      try {
        const sample = await coldCallOnce(next.file, next.event, next.fn, next.env);
        rememberCreated(state, { status: sample.status ?? 0, body: sample.body ?? '', headers: {}, ms: sample.callMs });
        if (sample.status === null || !next.expected(sample.status)) {
          problem.unexpected += 1;
          problem.status ??= sample.status;
          problem.note ??= `answered ${sample.status}: ${(sample.body ?? '').slice(0, 160)}`;
        }
        if (keep) samples.get(figure.name)!.push(sample);
      } catch (error) {
        problem.note ??= (error as Error).message;
      }
    };
    context.log(`bundles: cold import plus first call of ${subjects.length} bundles, ${coldCallSamples} fresh processes each (interleaved)`);
    for (const figure of subjects) await runOne(figure, false);
    for (let round = 0; round < coldCallSamples; round += 1) {
      for (const figure of subjects) await runOne(figure, true);
    }
    for (const figure of subjects) {
      const taken = samples.get(figure.name)!;
      const problem = problems.get(figure.name)!;
      figure.coldCall = {
        samples: taken.length,
        importMs: round(median(taken.map((sample) => sample.importMs)), 1),
        callMs: round(median(taken.map((sample) => sample.callMs)), 1),
        coldMs: round(median(taken.map((sample) => sample.importMs + sample.callMs)), 1),
        processMs: round(median(taken.map((sample) => sample.processMs)), 1),
        status: problem.status !== undefined ? problem.status : (taken[0]?.status ?? null),
        unexpected: problem.unexpected,
        ...(problem.note ? { note: problem.note } : {}),
      };
    }
    await countColdCallInstructionsOf(context, subjects, invocation, {
      enabled: options.instructions,
      sent: state,
      namesSubscription: (figure) => figure.kind === 'route' && (routes.get(figure.name)?.path.includes('{webhook}') ?? false),
    });
    context.log(`bundles: cold calls measured in ${Math.round((performance.now() - started) / 1000)} s`);
  } finally {
    await backend.stop();
  }
};
