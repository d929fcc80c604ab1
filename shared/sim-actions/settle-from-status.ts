import type { SimActionPendingItem, SimItem } from '../db/items';
import { batchGetItems } from '../db/batch-get';
import { key } from '../db/keys';
import { logger } from '../observability/logger';
import { settleAction, type ActionTable } from './store';

/**
 * How the operator confirms SIM actions (issue #33; docs/sim-actions.md, "Completion"): through
 * the operator feed. After a run of feed lines that carried a `status`, each of their SIMs with a
 * pending action is looked at as it now is: a SIM that has the action's target status completes
 * the action (whichever record brought it there; a `sim_status` record may name the action with
 * `action_id`), a SIM whose status is neither the target nor the one the action started from was
 * set to another status first, and the action fails as `superseded`. A SIM still in the status
 * the action started from leaves it pending. Costs one BatchGetItem of the locks per 100 SIMs
 * (usage lines cost nothing), and for a SIM with a pending action one GetItem and the
 * conditional transaction that ends it.
 */
export const settleAfterStatusLines = async (table: ActionTable, simIds: readonly number[], nowMs: number): Promise<void> => {
  if (simIds.length === 0) return;
  const unique = [...new Set(simIds)];
  const locks = (await batchGetItems(table.db, table.tableName, unique.map((id) => key.simActionPending(id)), { consistentRead: true })).filter(
    (item) => item.type === 'sim_action_pending',
  ) as unknown as SimActionPendingItem[];
  if (locks.length === 0) return;
  const current = await batchGetItems(table.db, table.tableName, locks.map((lock) => key.sim(lock.sim_id)), { consistentRead: true });
  const statusOf = new Map((current as unknown as SimItem[]).filter((item) => item.type === 'sim').map((sim) => [sim.id, sim.status]));
  for (const lock of locks) {
    const status = statusOf.get(lock.sim_id);
    if (status === undefined || status === lock.from_status) continue;
    const settled =
      status === lock.target_status
        ? await settleAction(table, lock.sim_id, lock.action_id, { status: 'completed' }, nowMs)
        : await settleAction(
            table,
            lock.sim_id,
            lock.action_id,
            { status: 'failed', failure: { code: 'superseded', detail: `A record of the operator set the SIM to ${status} before the action was confirmed.` } },
            nowMs,
          );
    if (settled) logger.info('sim action settled by the operator feed', { action_id: lock.action_id, sim_id: lock.sim_id, status });
  }
};
