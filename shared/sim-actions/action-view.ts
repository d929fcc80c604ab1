import type { SimActionItem } from '../db/items';
import type { SimActionView } from './schemas';

/**
 * The view of a stored action (issue #33), in a module of its own that imports nothing at run
 * time: the routes and the lifecycle events' stream consumer both show actions with it.
 */

/** The action as every route answers it. */
export const actionView = (item: SimActionItem): SimActionView => ({
  action_id: item.action_id,
  sim: item.sim_id,
  iccid: item.iccid,
  action: item.action,
  status: item.status,
  reason: item.reason,
  requested_at: item.requested_at,
  completed_at: item.completed_at,
  failure: item.failure ? { code: item.failure.code, detail: item.failure.detail } : null,
});
