import { actionView } from './action-view';
import { ApiError } from '../errors/api-error';
import type { SimItem } from '../db/items';
import { actionIdPattern } from './action-id';
import type { SimActionView } from './schemas';
import { listActions, readAction, type ActionTable } from './store';

/** A page of a SIM's actions in A1's envelope. */
export interface SimActionPage {
  count: number;
  page: number;
  page_size: number;
  total_pages: number;
  results: SimActionView[];
}

/**
 * GET /developer/api/sims/{sim}/actions/: the SIM's actions, newest first, paged as A1 is
 * (`count`, `total_pages` = ceil(count / page_size), a page beyond the last empty).
 */
export const listSimActions = async (table: ActionTable, sim: SimItem, paging: { page: number; page_size: number }): Promise<SimActionPage> => {
  const actions = await listActions(table, sim.id);
  const start = (paging.page - 1) * paging.page_size;
  return {
    count: actions.length,
    page: paging.page,
    page_size: paging.page_size,
    total_pages: Math.ceil(actions.length / paging.page_size),
    results: actions.slice(start, start + paging.page_size).map(actionView),
  };
};

/** The 404 of an action id that names no action of this SIM. */
const actionNotFound = () => new ApiError(404, 'not_found', 'Not found: no action with this id for this SIM.');

/**
 * GET /developer/api/sims/{sim}/actions/{action_id}/: one action of the SIM (read strongly
 * consistent, so an action just asked for is there); another SIM's action, or anything that is
 * not an action id, is 404 not_found.
 */
export const getSimAction = async (table: ActionTable, sim: SimItem, actionId: unknown): Promise<SimActionView> => {
  if (typeof actionId !== 'string' || !actionIdPattern.test(actionId)) throw actionNotFound();
  const action = await readAction(table, sim.id, actionId, true);
  if (!action) throw actionNotFound();
  return actionView(action);
};
