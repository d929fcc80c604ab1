import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { OperatorProvisioning } from '../adapters/operator-provisioning/provisioning-api';
import { isConditionFailure } from '../db/conditions';
import { key } from '../db/keys';
import { logger } from '../observability/logger';
import { recordMetric } from '../observability/metrics';
import { RetryScheduled } from '../queues/consumer';
import { retryDelaySeconds } from '../queues/retry-schedule';
import { isoWithOffset } from '../sims/sim-object';
import type { OperatorJob } from './operator-queue';
import { readAction, settleAction, type ActionTable } from './store';

/** What sending an action to the operator needs. */
export interface SendActionDeps extends ActionTable {
  /** The operator's provisioning API; undefined when OPERATOR_PROVISIONING_URL is not configured. */
  provisioning?: OperatorProvisioning;
  /** Waits between attempts (OPERATOR_RETRY_SCHEDULE_SECONDS). */
  retrySchedule: readonly number[];
  /** Attempts before the message goes to the dead-letter queue (the queue's maxReceiveCount). */
  maxAttempts: number;
  now: () => number;
}

/** One receive of a job's message: its attempt number, and how to hide it until the next attempt. */
export interface SendAttempt {
  number: number;
  retryAfter: (seconds: number) => Promise<void>;
}

/** Marks an action as taken by the operator's API (`sent_at`), if it is still pending. */
const markSent = async (deps: SendActionDeps, job: OperatorJob): Promise<void> => {
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: key.simAction(job.sim_id, job.action_id),
        UpdateExpression: 'SET sent_at = :at',
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':at': isoWithOffset(deps.now()), ':pending': 'pending' },
      }),
    );
  } catch (error) {
    // Confirmed (or failed) already: the feed can be quicker than the answer.
    if (!isConditionFailure(error)) throw error;
  }
};

/**
 * Sends one action to the operator's provisioning API (issue #33; docs/operator-provisioning-api.md):
 * an action no longer pending is dropped (nothing is sent twice after it ended); accepted (2xx),
 * it waits for the operator's confirmation through the feed; rejected (a 4xx but 401, 408, 429), it fails at once
 * as `rejected_by_operator` with the operator's reason; anything else (5xx, 401, 408, 429, no answer) is
 * tried again after the schedule's wait (logged at WARN), and after the last attempt the message
 * goes to the dead-letter queue (ERROR; the action then fails as `operator_timeout` after its 24
 * hours). A message may be received twice: the operator de-duplicates on `action_id`.
 */
export const sendAction = async (deps: SendActionDeps, job: OperatorJob, attempt: SendAttempt): Promise<void> => {
  const action = await readAction(deps, job.sim_id, job.action_id, true);
  if (!action || action.status !== 'pending') {
    logger.info('sim action no longer pending; not sent', { action_id: job.action_id, status: action?.status ?? null });
    return;
  }
  if (!deps.provisioning) throw new Error('OPERATOR_PROVISIONING_URL is not configured: the action cannot reach the operator');
  const answer = await deps.provisioning.submit({
    action_id: action.action_id,
    iccid: action.iccid,
    action: action.action,
    target_status: action.target_status,
    reason: action.reason,
    requested_at: action.requested_at,
  });
  recordMetric('OperatorRequests', { outcome: answer.kind });
  if (answer.kind === 'accepted') return markSent(deps, job);
  if (answer.kind === 'rejected') {
    const failed = await settleAction(deps, action.sim_id, action.action_id, { status: 'failed', failure: { code: 'rejected_by_operator', detail: answer.reason } }, deps.now());
    logger.info('sim action rejected by the operator', { action_id: action.action_id, http_status: answer.status, reason: answer.reason, settled: failed });
    return;
  }
  if (attempt.number >= deps.maxAttempts) throw new Error(`the operator did not take action ${action.action_id} after ${attempt.number} attempts (${answer.reason})`);
  const wait = retryDelaySeconds(deps.retrySchedule, attempt.number);
  await attempt.retryAfter(wait);
  throw new RetryScheduled(`action ${action.action_id} attempt ${attempt.number} failed (${answer.reason}); next in ${wait} s`);
};
