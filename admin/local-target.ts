/**
 * The admin CLI beside `npm start` (issue #36, point 1): with no --table, --endpoint or --region
 * and no TABLE_NAME or DYNAMODB_ENDPOINT, the CLI asks the local runtime where its data is
 * (`GET {base}/_local/admin`, local/admin-discovery.ts), as `npm run pay` finds the Stripe
 * emulator: the base is LOCAL_API_URL, else `http://127.0.0.1:${PORT ?? 3000}`. Nothing answering
 * within 5 seconds (a refused connection at once) means no local runtime: the CLI then works on the deployed table as before.
 */
import type { LocalAdminTargets } from '../local/admin-discovery';

/** How long the CLI waits for a local runtime to answer (a busy machine can take seconds; nothing listening is refused at once). */
const probeTimeoutMs = 5_000;

/** A local runtime found: its base URL and where its data is. */
export interface LocalTarget {
  baseUrl: string;
  targets: LocalAdminTargets;
}

/** The base URL a local runtime would answer on, from the environment. */
export const localBaseUrl = (env: NodeJS.ProcessEnv): string => (env.LOCAL_API_URL || `http://127.0.0.1:${env.PORT || 3000}`).replace(/\/+$/, '');

/** Whether the command line and environment leave the target to be found (no table, endpoint or region named). */
export const targetUnnamed = (values: { table?: string; endpoint?: string; region?: string }, env: NodeJS.ProcessEnv): boolean =>
  values.table === undefined && values.endpoint === undefined && values.region === undefined && !env.TABLE_NAME && !env.DYNAMODB_ENDPOINT;

const isTargets = (body: unknown): body is LocalAdminTargets => {
  const targets = body as Partial<LocalAdminTargets> | null;
  return (
    typeof targets === 'object' &&
    targets !== null &&
    [targets.table, targets.region, targets.dynamodb_endpoint, targets.sqs_endpoint].every((value) => typeof value === 'string') &&
    typeof targets.queues === 'object' &&
    targets.queues !== null
  );
};

/** The local runtime at `localBaseUrl(env)`, or undefined when none answers (or something else does). */
export const findLocalRuntime = async (env: NodeJS.ProcessEnv): Promise<LocalTarget | undefined> => {
  const baseUrl = localBaseUrl(env);
  try {
    const response = await fetch(`${baseUrl}/_local/admin`, { signal: AbortSignal.timeout(probeTimeoutMs) });
    if (response.status !== 200) return undefined;
    const body: unknown = await response.json();
    return isTargets(body) ? { baseUrl, targets: body } : undefined;
  } catch {
    return undefined;
  }
};

/** The queue each command sends to, when it sends (its --queue-url's default beside a local runtime). */
export const queueOfCommand = new Map<string, string>([
  ['feed', 'operator-feed'],
  ['replay-stream-record', 'webhook-deliveries'],
  ['resend-effect', 'fulfilment'],
  ['resume-order', 'fulfilment'],
]);
