import type { SimActionPendingItem } from '../db/items';
import { gsi1Partition, padId } from '../db/keys';
import { queryPages } from '../db/query-pages';
import { logger } from '../observability/logger';
import { settleAction, type ActionTable } from './store';

/** How long an action waits for the operator's confirmation before it fails as operator_timeout. */
export const actionTimeoutMs = 24 * 3_600_000;

/**
 * The timeout of SIM actions (issue #33; docs/sim-actions.md, "Timeout"): every action still
 * pending `actionTimeoutMs` after it was asked for fails as `operator_timeout`, which frees its
 * SIM. Read from GSI1, where only pending actions' locks are (oldest first, up to the cut-off:
 * the cost is that of the actions that time out), each ended by the same conditional
 * transaction as a confirmation, so a confirmation that comes at the same moment wins or loses
 * cleanly. Returns how many it ended. Run every 10 minutes deployed (shared/topology/schedules.ts)
 * and every minute by the local runtime.
 */
export const expireActions = async (table: ActionTable, nowMs: number): Promise<number> => {
  const cutOff = nowMs - actionTimeoutMs;
  let ended = 0;
  for await (const page of queryPages(table.db, {
    TableName: table.tableName,
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK < :cut',
    ExpressionAttributeValues: { ':pk': gsi1Partition.pendingSimActions, ':cut': padId(cutOff) },
  })) {
    for (const lock of page as SimActionPendingItem[]) {
      if (lock.type !== 'sim_action_pending') continue;
      const hours = Math.round(actionTimeoutMs / 3_600_000);
      const settled = await settleAction(table, lock.sim_id, lock.action_id, { status: 'failed', failure: { code: 'operator_timeout', detail: `The operator did not confirm the action within ${hours} hours.` } }, nowMs);
      if (settled) {
        ended += 1;
        logger.warn('sim action timed out', { action_id: lock.action_id, sim_id: lock.sim_id });
      }
    }
  }
  return ended;
};
