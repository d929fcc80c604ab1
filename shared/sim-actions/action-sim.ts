import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SimItem } from '../db/items';
import { key } from '../db/keys';
import { simNotFound, simItemOf } from '../sims/get-sim';
import { readSimByIccid } from '../sims/sim-by-iccid';
import { simInScope } from '../sims/sim-object';
import type { ActionTable } from './store';

/**
 * `{sim}` of the action routes (issue #33): the SIM's internal id as A2 takes it (1 to 15
 * digits), or its ICCID as the SMS routes take it (16 to 20 digits; no SIM id has that many).
 * Anything else is undefined (404 not_found, nothing read).
 */
export const simRefOf = (value: unknown): { id: number } | { iccid: string } | undefined => {
  if (typeof value !== 'string') return undefined;
  if (/^\d{1,15}$/.test(value)) return { id: Number(value) };
  if (/^\d{16,20}$/.test(value)) return { iccid: value };
  return undefined;
};

/** A SIM item by id (one GetItem), or undefined. */
const simById = async (table: ActionTable, simId: number, consistent: boolean): Promise<SimItem | undefined> =>
  simItemOf((await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.sim(simId), ConsistentRead: consistent }))).Item);

/**
 * The SIM `{sim}` names when it is in the scope of `scopeCustomerId` (the API key's customer and
 * its descendants): one GetItem by id, or one GSI1 Query by ICCID. A value that is neither, a
 * SIM that does not exist and one outside the scope are all 404 `not_found`, alike.
 */
export const findActionSim = async (table: ActionTable, value: unknown, scopeCustomerId: string): Promise<SimItem> => {
  const ref = simRefOf(value);
  if (!ref) throw simNotFound();
  const sim = 'id' in ref ? await simById(table, ref.id, false) : await readSimByIccid(table, ref.iccid);
  if (!sim || !simInScope(sim, scopeCustomerId)) throw simNotFound();
  return sim;
};

/** The SIM read again, strongly consistent (its status changed under a request); undefined when it is gone. */
export const rereadSim = (table: ActionTable, simId: number): Promise<SimItem | undefined> => simById(table, simId, true);
