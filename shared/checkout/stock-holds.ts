import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isTransactionCanceled, updateUnlessConditionFails } from '../db/conditions';
import type { HeldStockUnit, StockUnitItem } from '../db/items';
import { key, partition } from '../db/keys';
import { queryPages } from '../db/query-pages';
import { ApiError } from '../errors/api-error';
import { sleep } from '../time/sleep';

/** Where stock lives and how holds are timed. */
export interface StockStore {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/** One hold request: `count` units of `kind` for `orderId`, valid until `expiresAt` (epoch seconds). */
export interface HoldRequest {
  kind: StockUnitItem['kind'];
  count: number;
  orderId: string;
  /** Epoch seconds now: holds that expired before it count as free. */
  now: number;
  expiresAt: number;
}

/** TransactWriteItems takes at most 100 actions. */
const transactionLimit = 100;
/** Rounds of "find free units, hold them" before a checkout gives up with out_of_stock. */
const maxRounds = 8;
/** Extra free candidates read beyond the count needed, so that racing checkouts pick different units. */
const extraCandidates = 16;

/** A unit is free when it is not assigned and not held, or its hold has expired. */
const freeCondition =
  'attribute_not_exists(assigned_order) AND (attribute_not_exists(held_by) OR hold_expires_at < :now)';

const shuffle = <T>(values: T[]): T[] => {
  const copy = [...values];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(Math.random() * (index + 1));
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
};

/** Free units of a kind (strongly consistent), up to `wanted`, in key order. */
const freeUnits = async (store: StockStore, kind: string, now: number, wanted: number): Promise<string[]> => {
  const iccids: string[] = [];
  for await (const page of queryPages(store.db, {
    TableName: store.tableName,
    KeyConditionExpression: 'PK = :pk',
    FilterExpression: freeCondition,
    ProjectionExpression: 'iccid',
    ExpressionAttributeValues: { ':pk': partition.stock(kind), ':now': now },
    ConsistentRead: true,
  })) {
    for (const item of page) iccids.push(String(item.iccid));
    if (iccids.length >= wanted) break;
  }
  return iccids;
};

/** Holds exactly these units in one transaction, each only if it is still free. */
const holdUnits = async (store: StockStore, request: HoldRequest, iccids: string[]): Promise<boolean> => {
  try {
    await store.db.send(
      new TransactWriteCommand({
        TransactItems: iccids.map((iccid) => ({
          Update: {
            TableName: store.tableName,
            Key: key.stockUnit(request.kind, iccid),
            UpdateExpression: 'SET held_by = :order, hold_expires_at = :expires',
            ConditionExpression: freeCondition,
            ExpressionAttributeValues: { ':order': request.orderId, ':expires': request.expiresAt, ':now': request.now },
          },
        })),
      }),
    );
    return true;
  } catch (error) {
    // A unit taken meanwhile (ConditionalCheckFailed) or a concurrent transaction on one of
    // them (TransactionConflict): nothing of this transaction was written; try other units.
    if (isTransactionCanceled(error)) return false;
    throw error;
  }
};

/**
 * Takes a hold on `count` free units of a kind for an order, so that concurrent checkouts can
 * never hold more units than exist: each unit is held by a conditional write that succeeds
 * only while it is free (not assigned, not held, or its hold expired). Free candidates are
 * read with a strongly consistent Query of the kind's partition, and the units needed are
 * held in one TransactWriteItems (all or nothing; more than 100 units go in several, and a
 * failed later one releases the earlier ones). When a race takes a unit first, the round is
 * repeated with fresh candidates; when fewer free units exist than needed, or the races go
 * on for too many rounds, the answer is 409 `out_of_stock`.
 */
export const holdStock = async (store: StockStore, request: HoldRequest): Promise<HeldStockUnit[]> => {
  if (request.count === 0) return [];
  for (let round = 1; round <= maxRounds; round += 1) {
    const candidates = await freeUnits(store, request.kind, request.now, request.count + extraCandidates);
    if (candidates.length < request.count) break;
    const chosen = shuffle(candidates).slice(0, request.count);
    const held: string[] = [];
    let complete = true;
    for (let start = 0; start < chosen.length; start += transactionLimit) {
      const chunk = chosen.slice(start, start + transactionLimit);
      if (!(await holdUnits(store, request, chunk))) {
        complete = false;
        break;
      }
      held.push(...chunk);
    }
    if (complete) return chosen.map((iccid) => ({ kind: request.kind, iccid }));
    await releaseStock(store, request.orderId, held.map((iccid) => ({ kind: request.kind, iccid })));
    await sleep(Math.random() * 20 * round);
  }
  throw new ApiError(409, 'out_of_stock', `Not enough ${request.kind === 'esim' ? 'eSIM' : 'physical SIM'} stock for this cart.`);
};

/**
 * Releases an order's holds: each unit is freed only if this order still holds it (a hold
 * that expired and was taken by another checkout is left alone).
 */
export const releaseStock = async (store: StockStore, orderId: string, units: HeldStockUnit[]): Promise<void> => {
  const release = {
    UpdateExpression: 'REMOVE held_by, hold_expires_at',
    ConditionExpression: 'held_by = :order AND attribute_not_exists(assigned_order)',
    ExpressionAttributeValues: { ':order': orderId },
  };
  await Promise.all(units.map((unit) => updateUnlessConditionFails(store, { Key: key.stockUnit(unit.kind, unit.iccid), ...release })));
};
