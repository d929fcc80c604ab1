import type { SimItem } from '../db/items';
import { actionView } from './action-view';
import { ApiError } from '../errors/api-error';
import { validateIdempotencyKey, withIdempotency } from '../idempotency/idempotency';
import { logger } from '../observability/logger';
import { rereadSim } from './action-sim';
import type { OperatorQueue } from './operator-queue';
import { validateSimActionRequest, type SimActionRequestBody } from './schemas';
import { newActionId, newActionItem, removePendingAction, writeNewAction, type ActionTable } from './store';
import { allowedFromInWords, isAllowedFrom } from './transitions';

/** What asking for an action needs: the table, a clock, and the operator's queue (none: no operator is configured). */
export interface RequestActionDeps extends ActionTable {
  now: () => number;
  /** Where actions go to the operator; undefined when OPERATOR_PROVISIONING_URL is not configured. */
  operatorQueue?: OperatorQueue;
}

/** Who asks: the bearer token's user (and roles) with the API key's customer. */
export interface ActionCaller {
  userId: string;
  customerId: string;
  roles: readonly string[];
}

/** The answer: 202 with the action (as first sent, on a replay), and whether it is a replay. */
export interface RequestedAction {
  status: number;
  body: string;
  replayed: boolean;
}

/** The role a user needs to terminate a SIM. */
export const adminRole = 'admin';

const errors = {
  notConfigured: () => new ApiError(503, 'operator_not_configured', "The operator's provisioning system is not configured in this environment: SIM actions are not available."),
  adminRequired: () => new ApiError(403, 'admin_role_required', 'Terminating a SIM needs a user with the admin role.'),
  confirmationMissing: () => new ApiError(400, 'confirmation_required', 'terminate needs "confirm": "<the SIM\'s ICCID>" in the body.'),
  confirmationWrong: () => new ApiError(400, 'confirmation_required', "confirm is not the SIM's ICCID: terminate needs \"confirm\": \"<the SIM's ICCID>\" exactly."),
  invalidTransition: (sim: SimItem, body: SimActionRequestBody) =>
    new ApiError(409, 'invalid_transition', `SIM ${sim.id} is ${sim.status}: ${body.action} is allowed from ${allowedFromInWords(body.action)}.`),
  pending: (sim: SimItem, actionId?: string) =>
    new ApiError(409, 'action_pending', `SIM ${sim.id} has a pending action${actionId ? ` (${actionId})` : ''}: ask again once it has completed or failed.`),
  simGone: () => new ApiError(404, 'not_found', 'Not found.'),
};

/** Attempts when the SIM's status changes between the read and the write, or transactions collide. */
const maxAttempts = 4;

/**
 * The rules of one action for the SIM as it is, then the write: terminate needs the admin role
 * (403 admin_role_required) and `confirm` = the ICCID (400 confirmation_required); the action
 * must be allowed from the SIM's status (409 invalid_transition, the detail naming it); another
 * pending action is 409 action_pending. The write is conditional on the status judged, so a
 * status that changed meanwhile is judged again on the SIM read anew.
 */
const placeAction = async (deps: RequestActionDeps, caller: ActionCaller, first: SimItem, body: SimActionRequestBody): Promise<string> => {
  let sim: SimItem | undefined = first;
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    if (!sim || !sim.customer_path.includes(caller.customerId)) throw errors.simGone();
    if (body.action === 'terminate') {
      if (!caller.roles.includes(adminRole)) throw errors.adminRequired();
      if (body.confirm === undefined) throw errors.confirmationMissing();
      if (body.confirm !== sim.iccid) throw errors.confirmationWrong();
    }
    if (!isAllowedFrom(body.action, sim.status)) throw errors.invalidTransition(sim, body);
    const nowMs = deps.now();
    const action = newActionItem({ actionId: newActionId(nowMs), sim, action: body.action, reason: body.reason ?? null, requestedBy: caller.userId, nowMs });
    const written = await writeNewAction(deps, action, sim);
    if (written.outcome === 'pending') throw errors.pending(sim, written.lock?.action_id);
    if (written.outcome === 'written') {
      try {
        await deps.operatorQueue!.enqueue({ action_id: action.action_id, sim_id: sim.id });
      } catch (error) {
        // Not handed to the operator: undone, so that the SIM is free and the caller may ask again.
        await removePendingAction(deps, action).catch((undo: unknown) => logger.error('pending action not removed after its queueing failed', { action_id: action.action_id, error: String(undo) }));
        throw error;
      }
      logger.info('sim action requested', { action_id: action.action_id, sim_id: sim.id, action: action.action });
      return JSON.stringify(actionView(action));
    }
    if (written.outcome === 'sim-changed') sim = await rereadSim(deps, first.id);
  }
  throw errors.pending(first);
};

/**
 * POST /developer/api/sims/{sim}/actions/ (issue #33; docs/sim-actions.md): the body's shape
 * (400 invalid_action) and the Idempotency-Key header (400 invalid_request) are checked first,
 * then the SIM (`sim()`: 404 not_found when it is not in the key's scope), then whether an
 * operator is configured (503 operator_not_configured), then the action's rules; a new action is
 * written pending and queued for the operator, and answered 202. With an Idempotency-Key, the
 * same key and body (for the same SIM and customer group) within 24 hours get the first 202 again.
 */
export const requestSimAction = async (
  deps: RequestActionDeps,
  caller: ActionCaller,
  request: { body: unknown; idempotencyKey: string | undefined; sim: () => Promise<SimItem> },
): Promise<RequestedAction> => {
  const body = validateSimActionRequest(request.body);
  const idempotencyKey = validateIdempotencyKey(request.idempotencyKey);
  const sim = await request.sim();
  if (!deps.operatorQueue) throw errors.notConfigured();
  const execute = async () => ({ status: 202, body: await placeAction(deps, caller, sim, body) });
  if (idempotencyKey === undefined) return { ...(await execute()), replayed: false };
  const { response, replayed } = await withIdempotency(
    { db: deps.db, tableName: deps.tableName, now: () => new Date(deps.now()) },
    { endpoint: `sim-action#${caller.customerId}`, idempotencyKey, body: { sim: sim.id, request: request.body } },
    execute,
  );
  return { status: response.status, body: response.body, replayed };
};
