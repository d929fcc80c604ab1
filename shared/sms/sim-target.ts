import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CustomerItem, SimItem } from '../db/items';
import { key } from '../db/keys';
import { ApiError } from '../errors/api-error';
import { readSimByIccid } from '../sims/sim-by-iccid';

/** What finding a SIM needs: the single table. */
export interface SimTable {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/** An ICCID as the spec allows it: up to 20 digits. */
export const isValidIccid = (iccid: string): boolean => /^\d{1,20}$/.test(iccid);

const notFound = () => new ApiError(404, 'not_found', 'Not found.');

/**
 * The SIM with this ICCID when it is in the scope of `scopeCustomerId` (the API key's
 * customer and all its descendants, never upwards). An ICCID that is not 1 to 20 digits,
 * unknown, or out of scope is 404 `not_found`, the three cases indistinguishable.
 * One GSI1 query (ICCID#<iccid>, SK = SIM).
 */
export const findSimInScope = async (table: SimTable, iccid: string, scopeCustomerId: string): Promise<SimItem> => {
  if (!isValidIccid(iccid)) throw notFound();
  const sim = await readSimByIccid(table, iccid);
  if (!sim || !(sim.customer_path ?? []).includes(scopeCustomerId)) throw notFound();
  return sim;
};

/** Whether SMS is enabled for a customer (the SIM's owner); an unknown customer has none. */
export const isSmsEnabled = async (table: SimTable, customerId: string): Promise<boolean> => {
  const result = await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.customer(customerId) }));
  return (result.Item as CustomerItem | undefined)?.sms_enabled === true;
};
