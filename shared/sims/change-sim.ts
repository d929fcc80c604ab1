import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { CustomerItem, SimItem } from '../db/items';
import { key } from '../db/keys';
import { normaliseDecimal } from '../vocabulary/decimal';
import { decimal, identifier, simStatuses } from '../vocabulary/fields';
import { readSimByIccid } from './sim-by-iccid';
import { changeSimFields, type SimFields, type SimTable } from './sim-writes';

/** The SIM status values of the specification (shared/vocabulary/fields.ts). */
export { simStatuses };

/** The first message of `rule` for `value` ("must be ..."), or undefined when it holds. */
const broken = (rule: v.GenericSchema, value: unknown): string | undefined => {
  const checked = v.safeParse(rule, value);
  return checked.success ? undefined : checked.issues[0].message;
};

/** What an operator may change on a SIM (issue #15, point 5): its status, its month-to-date usage and (admin CLI) its owner. */
export interface SimChange {
  status?: (typeof simStatuses)[number];
  /** Megabytes as a decimal string with at most two decimals ("12.50"). */
  data_used_mb?: string;
  /** The id of the customer the SIM moves to. */
  customer?: string;
}

/** Why a change was refused (unknown SIM, bad value); the message can be shown as is. */
export class SimChangeRefused extends Error {
  override name = 'SimChangeRefused';
}

/**
 * Checks a change request `{status?, data_used_mb?, customer?}` by the rules of the seed and the
 * feed (shared/vocabulary/fields.ts: a SIM status, a decimal of at most 12 integer digits and
 * two decimals, a customer id by the id rule); throws SimChangeRefused naming the bad field in
 * the rule's words. A JSON number of megabytes is taken as its two-decimal text.
 */
export const parseSimChange = (body: unknown, options: { owner?: boolean } = {}): SimChange => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new SimChangeRefused('the body must be a JSON object {status?, data_used_mb?}');
  const { status, data_used_mb: used, customer } = body as Record<string, unknown>;
  const change: SimChange = {};
  if (status !== undefined) {
    if (!simStatuses.includes(status as SimChange['status'] & string)) throw new SimChangeRefused(`status must be one of ${simStatuses.join(', ')}`);
    change.status = status as SimChange['status'];
  }
  if (used !== undefined) {
    const text = typeof used === 'number' && Number.isFinite(used) && used >= 0 ? used.toFixed(2) : used;
    const problem = broken(decimal(), text);
    if (problem) throw new SimChangeRefused(`data_used_mb ${problem}`);
    change.data_used_mb = normaliseDecimal(text as string);
  }
  if (options.owner && customer !== undefined) {
    const problem = broken(identifier(), customer);
    if (problem) throw new SimChangeRefused(`customer ${problem}`);
    change.customer = customer as string;
  }
  if (change.status === undefined && change.data_used_mb === undefined && change.customer === undefined) {
    throw new SimChangeRefused(options.owner ? 'give status, data_used_mb, customer or several' : 'give status, data_used_mb or both');
  }
  return change;
};

/**
 * Changes a SIM's status and/or month-to-date usage (the local console and the admin CLI,
 * against any table) through the SIM write path (./sim-writes.ts): only what differs is
 * written, with `updated_at` stamped; the table's stream then keeps the list index exact and
 * makes line.activated / line.suspended / usage.updated of it. Costs are left as they are
 * (the billing import owns them). Read again and retried when another writer changed the SIM
 * in between. Returns the SIM as written.
 */
export const changeSim = async (table: SimTable, iccid: string, change: SimChange, nowMs: number): Promise<SimItem> => {
  for (let attempt = 1; ; attempt += 1) {
    const sim = await readSimByIccid(table, iccid);
    if (!sim) throw new SimChangeRefused(`no SIM with ICCID ${iccid}`);
    const fields: SimFields = {
      ...(change.status ? { status: change.status } : {}),
      ...(change.data_used_mb ? { data_used_mb: change.data_used_mb } : {}),
      ...(change.customer ? await ownerFields(table, change.customer) : {}),
    };
    const result = await changeSimFields(table, sim, fields, nowMs);
    if (result.written) return result.sim;
    if (attempt >= 5) throw new Error(`SIM ${iccid} kept changing under this write; try again`);
  }
};

/** The owner fields of a SIM moved to `customerId` (its name and path); refused for an unknown customer. */
const ownerFields = async (table: SimTable, customerId: string): Promise<SimFields> => {
  const found = (await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.customer(customerId), ConsistentRead: true }))).Item as
    | CustomerItem
    | undefined;
  if (found?.type !== 'customer') throw new SimChangeRefused(`no customer with id ${customerId}`);
  return { customer_id: found.id, customer_name: found.name, customer_path: [...found.path] };
};
