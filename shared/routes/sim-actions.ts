import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { FunctionConfig } from '../config/function-config';
import type { SimItem } from '../db/items';
import { developerDeps, developerRoute, type DeveloperDeps } from '../http/developer-route';
import { header } from '../http/headers';
import { jsonHeaders, ok } from '../http/responses';
import { appendLogKeys } from '../observability/invocation';
import { findActionSim } from '../sim-actions/action-sim';
import { sqsOperatorQueue, type OperatorQueue } from '../sim-actions/operator-queue';
import { getSimAction, listSimActions } from '../sim-actions/read-actions';
import { requestSimAction } from '../sim-actions/request-action';
import { validateSimActionsQuery } from '../sim-actions/schemas';

/** What asking for a SIM action needs beyond every Area A route's deps: the operator's queue, or none. */
export interface RequestSimActionDeps extends DeveloperDeps {
  /** Undefined when OPERATOR_PROVISIONING_URL is not configured (503 operator_not_configured). */
  operatorQueue?: OperatorQueue;
}

/**
 * The deps of request-sim-action, from its configuration (read once at init): the queue to the
 * operator only when OPERATOR_PROVISIONING_URL names one.
 */
export const requestSimActionDeps = (config: FunctionConfig<'request-sim-action'>): RequestSimActionDeps => ({
  ...developerDeps(config),
  ...(config.operatorProvisioningUrl ? { operatorQueue: sqsOperatorQueue(config, config.operatorActionQueueUrl) } : {}),
});

/** The SIM `{sim}` names in the key's scope, read beside the rate-limit write (developerRoute's prepare). */
const simOf = ({ event, caller }: { event: APIGatewayProxyEvent; caller: { customerId: string } }, deps: DeveloperDeps): Promise<SimItem> => {
  appendLogKeys({ sim_id: event.pathParameters?.sim });
  return findActionSim(deps, event.pathParameters?.sim, caller.customerId);
};

/**
 * POST /developer/api/sims/{sim}/actions/ (issue #33): asks the operator to activate, suspend,
 * resume or terminate the SIM; 202 with the pending action (shared/sim-actions/request-action.ts).
 * The SIM is read beside the rate-limit write; its 404 answers after the body's checks.
 */
export const requestSimActionRoute = (deps: RequestSimActionDeps) =>
  developerRoute<SimItem, RequestSimActionDeps>({ deps, scope: 'sims:manage', json: true, prepare: simOf }, async ({ event, caller, prepared }, resolved) => {
    const answer = await requestSimAction(resolved, caller, { body: event.body, idempotencyKey: header(event, 'Idempotency-Key'), sim: prepared });
    return { statusCode: answer.status, headers: { ...jsonHeaders, ...(answer.replayed ? { 'Idempotent-Replayed': 'true' } : {}) }, body: answer.body };
  });

/** GET /developer/api/sims/{sim}/actions/ (issue #33): the SIM's actions, newest first, paged as A1. */
export const listSimActionsRoute = (deps: DeveloperDeps) =>
  developerRoute<SimItem>({ deps, scope: 'sims:manage', prepare: simOf }, async ({ event, prepared }, resolved) => {
    const paging = validateSimActionsQuery(event.queryStringParameters);
    return ok(200, await listSimActions(resolved, await prepared(), paging));
  });

/** GET /developer/api/sims/{sim}/actions/{action_id}/ (issue #33): one action of the SIM. */
export const getSimActionRoute = (deps: DeveloperDeps) =>
  developerRoute<SimItem>({ deps, scope: 'sims:manage', prepare: simOf }, async ({ event, prepared }, resolved) =>
    ok(200, await getSimAction(resolved, await prepared(), event.pathParameters?.action_id)),
  );
