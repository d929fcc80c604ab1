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

/** The shape of a SIM id (up to 15 digits), which the SMS routes are often given instead of the ICCID. */
const simIdShape = /^\d{1,15}$/;

/**
 * The 404 of the SMS routes for `iccid`: `Not found.`, or, when the value has the shape of a SIM
 * id, a detail saying that these routes take the ICCID and A2 the SIM id (the opposite of A2's
 * hint, shared/sims/get-sim.ts). The hint depends on the path's shape only, never on what was
 * read, so a missing SIM and one out of scope stay indistinguishable.
 */
export const iccidNotFound = (iccid: string): ApiError =>
  new ApiError(
    404,
    'not_found',
    simIdShape.test(iccid)
      ? "Not found: the SMS routes /developer/api/sims/<iccid>/sms/ take the SIM's ICCID (19 or 20 digits); a SIM id (up to 15 digits) is what GET /developer/api/sims/<sim_id>/ takes, and its answer's iccid is what goes here."
      : 'Not found.',
  );

/**
 * The SIM with this ICCID when it is in the scope of `scopeCustomerId` (the API key's
 * customer and all its descendants, never upwards). An ICCID that is not 1 to 20 digits,
 * unknown, or out of scope is 404 `not_found`, the three cases indistinguishable (iccidNotFound).
 * One GSI1 query (ICCID#<iccid>, SK = SIM).
 */
export const findSimInScope = async (table: SimTable, iccid: string, scopeCustomerId: string): Promise<SimItem> => {
  if (!isValidIccid(iccid)) throw iccidNotFound(iccid);
  const sim = await readSimByIccid(table, iccid);
  if (!sim || !(sim.customer_path ?? []).includes(scopeCustomerId)) throw iccidNotFound(iccid);
  return sim;
};

/** Whether SMS is enabled for a customer (the SIM's owner); an unknown customer has none. */
export const isSmsEnabled = async (table: SimTable, customerId: string): Promise<boolean> => {
  const result = await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.customer(customerId) }));
  return (result.Item as CustomerItem | undefined)?.sms_enabled === true;
};
