import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SimItem } from '../db/items';
import { key } from '../db/keys';
import { isoWithOffset } from './sim-object';
import { readSimByIccid } from './sim-by-iccid';

/** The SIM status values of the specification. */
export const simStatuses = ['active', 'inactive', 'suspended', 'cancelled', 'stock', 'dispatched', 'trial'] as const;

/** What an operator may change on a SIM (issue #15, point 5): its status and its month-to-date usage. */
export interface SimChange {
  status?: (typeof simStatuses)[number];
  /** Megabytes as a decimal string with at most two decimals ("12.50"). */
  data_used_mb?: string;
}

/** Why a change was refused (unknown SIM, bad value); the message can be shown as is. */
export class SimChangeRefused extends Error {
  override name = 'SimChangeRefused';
}

/** Checks a change request `{status?, data_used_mb?}`; throws SimChangeRefused naming the bad field. */
export const parseSimChange = (body: unknown): SimChange => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new SimChangeRefused('the body must be a JSON object {status?, data_used_mb?}');
  const { status, data_used_mb: used } = body as Record<string, unknown>;
  const change: SimChange = {};
  if (status !== undefined) {
    if (!simStatuses.includes(status as SimChange['status'] & string)) throw new SimChangeRefused(`status must be one of ${simStatuses.join(', ')}`);
    change.status = status as SimChange['status'];
  }
  if (used !== undefined) {
    const text = typeof used === 'number' ? used.toFixed(2) : used;
    if (typeof text !== 'string' || !/^\d{1,9}(\.\d{1,2})?$/.test(text)) {
      throw new SimChangeRefused('data_used_mb must be a non-negative number of megabytes with at most two decimals');
    }
    change.data_used_mb = Number(text).toFixed(2);
  }
  if (change.status === undefined && change.data_used_mb === undefined) throw new SimChangeRefused('give status, data_used_mb or both');
  return change;
};

/**
 * Changes a SIM's status and/or month-to-date usage (the local console and the admin CLI, against
 * any table), as any writer of SIMs must: the SIM item and its scope items (one per customer on
 * its owner's path, which the list reads) in one transaction, with `updated_at` stamped. The
 * table's stream then makes line.activated / line.suspended / usage.updated of it. Costs are
 * left as they are (the billing import owns them). Returns the SIM as written.
 */
export const changeSim = async (
  table: { db: DynamoDBDocumentClient; tableName: string },
  iccid: string,
  change: SimChange,
  nowMs: number,
): Promise<SimItem> => {
  const sim = await readSimByIccid(table, iccid);
  if (!sim) throw new SimChangeRefused(`no SIM with ICCID ${iccid}`);
  const updated: SimItem = {
    ...sim,
    ...(change.status ? { status: change.status } : {}),
    ...(change.data_used_mb ? { data_used_mb: change.data_used_mb } : {}),
    updated_at: isoWithOffset(nowMs),
    updated_at_ms: nowMs,
  };
  await table.db.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: table.tableName,
            Key: key.sim(sim.id),
            UpdateExpression: 'SET #status = :status, data_used_mb = :used, updated_at = :at, updated_at_ms = :ms',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':status': updated.status, ':used': updated.data_used_mb, ':at': updated.updated_at, ':ms': nowMs },
          },
        },
        ...sim.customer_path.map((customerId) => ({
          Update: {
            TableName: table.tableName,
            Key: key.simScope(customerId, sim.id),
            UpdateExpression: 'SET #status = :status, updated_at_ms = :ms',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':status': updated.status, ':ms': nowMs },
          },
        })),
      ],
    }),
  );
  return updated;
};
