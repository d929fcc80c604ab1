import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AccountItem, CheckoutEndpoint, DeviceItem, PlanItem } from '../db/items';
import { key } from '../db/keys';
import { sleep } from '../time/sleep';

/** The plan categories each checkout sells; a SKU of any other category is unknown there. */
export const endpointCategories: Record<CheckoutEndpoint, readonly PlanItem['category'][]> = {
  esim: ['business_travel', 'business_topup', 'travel', 'travel_topup'],
  physical: ['physical'],
  iot: ['iot_contract'],
};

/** What one checkout reads before it decides anything. */
export interface CheckoutReads {
  /** Plans by SKU (every plan found, published or not, of any category). */
  plans: Map<string, PlanItem>;
  /** The account of the buyer's e-mail, when asked for and found. */
  account?: AccountItem;
  /** Devices by ICCID, when asked for and found. */
  devices: Map<string, DeviceItem>;
}

/** What to read. */
export interface CheckoutReadRequest {
  skus: string[];
  /** The buyer's e-mail, when the account matters (a B1 Business cart). */
  accountEmail?: string;
  iccids: string[];
}

/** Attempts before unprocessed keys of a BatchGetItem count as a failure. */
const maxAttempts = 6;

/**
 * Reads the cart's plans, the buyer's account and the top-up devices in ONE strongly
 * consistent BatchGetItem (at most 20 plans + 1 account + 20 devices, under the 100-key
 * limit); unprocessed keys are retried with backoff.
 */
export const readCheckoutItems = async (
  db: DynamoDBDocumentClient,
  tableName: string,
  request: CheckoutReadRequest,
): Promise<CheckoutReads> => {
  const keys = new Map<string, Record<string, string>>();
  const add = (itemKey: { PK: string; SK: string }) => keys.set(`${itemKey.PK}|${itemKey.SK}`, itemKey);
  for (const sku of request.skus) add(key.plan(sku));
  if (request.accountEmail !== undefined) add(key.account(request.accountEmail));
  for (const iccid of request.iccids) add(key.device(iccid));

  const found: Record<string, unknown>[] = [];
  let pending = [...keys.values()];
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    if (attempt > maxAttempts) throw new Error(`${pending.length} keys stayed unprocessed after ${maxAttempts} BatchGetItem attempts`);
    if (attempt > 1) await sleep(Math.min(25 * 2 ** (attempt - 2), 400) * (0.5 + Math.random() / 2));
    const output = await db.send(
      new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } } }),
    );
    found.push(...(output.Responses?.[tableName] ?? []));
    pending = (output.UnprocessedKeys?.[tableName]?.Keys ?? []) as Record<string, string>[];
  }

  const reads: CheckoutReads = { plans: new Map(), devices: new Map() };
  for (const item of found) {
    if (item.type === 'plan') reads.plans.set((item as unknown as PlanItem).sku, item as unknown as PlanItem);
    else if (item.type === 'account') reads.account = item as unknown as AccountItem;
    else if (item.type === 'device') reads.devices.set((item as unknown as DeviceItem).iccid, item as unknown as DeviceItem);
  }
  return reads;
};
