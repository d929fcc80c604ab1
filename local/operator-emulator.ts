import { timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { provisioningSignature } from '../shared/adapters/operator-provisioning/provisioning-api';
import { logger } from '../shared/observability/logger';
import type { LocalMount } from './gateway';
import { readBoundedBody } from './request-body';
import { pendingTimers } from './pending-timers';

/**
 * The operator emulator (issue #33; LOCAL-CONTRACT.md, "SIM actions and the operator emulator"):
 * the other side of the operator's provisioning API (docs/operator-provisioning-api.md), served
 * on the API's own origin under `{base}/_local/operator/` and the handlers' OPERATOR_PROVISIONING_URL
 * when none is given, so `npm start` takes SIM actions with no configuration. It takes each
 * signed request, lists it (`GET {base}/_local/operator/requests`, newest first) and answers by
 * OPERATOR_SIMULATOR_OUTCOME after OPERATOR_SIMULATOR_DELAY_MS:
 *
 * - `completed` (default): 202 at once, then after the delay the confirming `sim_status` record
 *   (the target status and the `action_id`) into the operator feed, as an operator would;
 * - `rejected`: after the delay (at most 8 s, within the service's 10 s timeout) 422
 *   `{"reason": "rejected by the operator emulator"}`: the action fails as rejected_by_operator;
 * - `silent`: 202 and nothing more: the action stays pending until its 24-hour timeout.
 *
 * As the SMS simulator reads markers in a text, a `reason` holding `[completed]`, `[rejected]` or
 * `[silent]` chooses that outcome for its action alone (so one runtime can show all three).
 */

/** What the emulator does with a request. */
export type OperatorOutcome = 'completed' | 'rejected' | 'silent';

const outcomes: readonly OperatorOutcome[] = ['completed', 'rejected', 'silent'];

/** The mount prefix of the emulator. */
export const operatorMount = '/_local/operator';

/** The reason the emulator gives when it rejects. */
export const emulatorRejection = 'rejected by the operator emulator';

/** The longest the emulator holds a rejection (the service waits 10 s for an answer). */
const maxRejectionDelayMs = 8_000;

/** A request the emulator received, as `GET /requests` lists it. */
export interface OperatorRequestRecord {
  action_id: string;
  iccid: string;
  action: string;
  received_at: string;
}

/** Options of the emulator. */
export interface OperatorEmulatorOptions {
  /** The HMAC key requests are signed with (OPERATOR_PROVISIONING_SECRET), read when a request comes. */
  secret: () => string | undefined;
  /** Sends one JSON Lines record into the operator feed (the local operator-feed queue). */
  sendFeed: (line: string) => Promise<void>;
  /** OPERATOR_SIMULATOR_DELAY_MS (default 2000). */
  delayMs?: number;
  /** OPERATOR_SIMULATOR_OUTCOME (default completed). */
  outcome?: OperatorOutcome;
  /** No log line per request. */
  quiet?: boolean;
}

/** A running emulator: its mount, what it received, and stop (pending confirmations are dropped). */
export interface OperatorEmulator {
  handle: LocalMount;
  requests(): OperatorRequestRecord[];
  stop(): void;
}

/** The emulator's settings from the environment (OPERATOR_SIMULATOR_DELAY_MS, OPERATOR_SIMULATOR_OUTCOME); a bad value throws. */
export const operatorSettingsFromEnv = (env: Record<string, string | undefined>): Pick<OperatorEmulatorOptions, 'delayMs' | 'outcome'> => {
  const delay = env.OPERATOR_SIMULATOR_DELAY_MS;
  const outcome = env.OPERATOR_SIMULATOR_OUTCOME;
  if (delay !== undefined && delay !== '' && !(/^\d+$/.test(delay) && Number.isSafeInteger(Number(delay)))) {
    throw new Error(`OPERATOR_SIMULATOR_DELAY_MS must be a whole number of milliseconds, not ${JSON.stringify(delay)}`);
  }
  if (outcome !== undefined && outcome !== '' && !outcomes.includes(outcome as OperatorOutcome)) {
    throw new Error(`OPERATOR_SIMULATOR_OUTCOME must be one of ${outcomes.join(', ')}, not ${JSON.stringify(outcome)}`);
  }
  return { ...(delay ? { delayMs: Number(delay) } : {}), ...(outcome ? { outcome: outcome as OperatorOutcome } : {}) };
};

const answer = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  response.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers });
  response.end(JSON.stringify(body));
};

const signatureMatches = (given: string | string[] | undefined, expected: string): boolean => {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
};

/** The outcome of one request: its reason's marker, else the default. */
const outcomeFor = (reason: unknown, fallback: OperatorOutcome): OperatorOutcome => {
  if (typeof reason !== 'string') return fallback;
  return outcomes.find((outcome) => reason.includes(`[${outcome}]`)) ?? fallback;
};

/** Creates the emulator (it serves through the gateway's mount; no server of its own). */
export const createOperatorEmulator = (options: OperatorEmulatorOptions): OperatorEmulator => {
  const delayMs = options.delayMs ?? 2000;
  const fallback = options.outcome ?? 'completed';
  const received: OperatorRequestRecord[] = [];
  const confirmed = new Set<string>();
  const { later, cancelAll } = pendingTimers();

  const handle: LocalMount = async (request, response, path) => {
    const route = path.replace(/\/+$/, '');
    if (route === '/requests') {
      if (request.method !== 'GET' && request.method !== 'HEAD') return answer(response, 405, { detail: `Method ${request.method} is not allowed on this path; use GET.`, code: 'method_not_allowed' }, { Allow: 'GET' });
      return answer(response, 200, [...received].reverse());
    }
    if (route !== '/actions') return answer(response, 404, { detail: `Not found: the operator emulator takes POST ${operatorMount}/actions and lists them at GET ${operatorMount}/requests.`, code: 'not_found' });
    if (request.method !== 'POST') return answer(response, 405, { detail: `Method ${request.method} is not allowed on this path; use POST.`, code: 'method_not_allowed' }, { Allow: 'POST' });
    const { text, tooLarge } = await readBoundedBody(request, 64 * 1024);
    if (tooLarge) return answer(response, 413, { reason: 'the body is over 64 KiB' });
    const secret = options.secret();
    if (!secret || !signatureMatches(request.headers['x-operator-signature'], provisioningSignature(secret, text))) {
      return answer(response, 401, { reason: 'X-Operator-Signature is missing or does not match the body' });
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return answer(response, 400, { reason: 'the body is not JSON' });
    }
    const { action_id: actionId, iccid, action, target_status: target } = body;
    if (typeof actionId !== 'string' || typeof iccid !== 'string' || typeof action !== 'string' || typeof target !== 'string') {
      return answer(response, 400, { reason: 'action_id, iccid, action and target_status are required strings' });
    }
    received.push({ action_id: actionId, iccid, action, received_at: new Date().toISOString() });
    const outcome = outcomeFor(body.reason, fallback);
    if (!options.quiet) logger.info('operator emulator request', { action_id: actionId, action, outcome });
    if (outcome === 'rejected') {
      await new Promise<void>((resolve) => later(Math.min(delayMs, maxRejectionDelayMs), resolve));
      return answer(response, 422, { reason: emulatorRejection });
    }
    answer(response, 202, { status: 'accepted' });
    if (outcome === 'silent' || confirmed.has(actionId)) return;
    confirmed.add(actionId);
    later(delayMs, () => {
      const record = { type: 'sim_status', source_time: new Date().toISOString(), iccid, status: target, action_id: actionId };
      options.sendFeed(JSON.stringify(record)).catch((error: unknown) => logger.error('operator emulator could not send its feed record', { action_id: actionId, error: String(error) }));
    });
  };

  return {
    handle,
    requests: () => [...received].reverse(),
    stop: () => {
      cancelAll();
    },
  };
};
