import { randomBytes } from 'node:crypto';
import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { cancellationCodes, isTransactionCanceled } from '../db/conditions';
import type { SimActionFailureItem, SimActionItem, SimActionPendingItem, SimItem } from '../db/items';
import { gsi1, key, partition, sortKeyPrefix } from '../db/keys';
import { queryPages } from '../db/query-pages';
import { TransientFailure } from '../errors/outage';
import { recordMetric } from '../observability/metrics';
import { isoWithOffset } from '../sims/sim-object';
import { targetStatusOf, type SimAction } from './transitions';

/**
 * SIM actions in the table (issue #33; docs/sim-actions.md, "Access patterns"): each action in
 * its SIM's partition (`SIM#<id>` / `ACTION#<action_id>`), and while one is pending its lock
 * (`SIM#<id>` / `ACTION_PENDING`), which makes "at most one pending action per SIM" a
 * conditional put and lists the pending actions, oldest first, in GSI1 for the timeout's sweep.
 * Every move of an action is one transaction, conditional on the state it moves from.
 */

/** The single table. */
export interface ActionTable {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/** A new action id at `nowMs`: `act_`, the time in 12 hexadecimal digits, 16 random ones (ids sort by time). */
export const newActionId = (nowMs: number): string => `act_${nowMs.toString(16).padStart(12, '0')}${randomBytes(8).toString('hex')}`;

/** What a new action is made of. */
export interface NewAction {
  actionId: string;
  sim: SimItem;
  action: SimAction;
  reason: string | null;
  requestedBy: string;
  nowMs: number;
}

/** The item of a new, pending action. */
export const newActionItem = (request: NewAction): SimActionItem => ({
  ...key.simAction(request.sim.id, request.actionId),
  type: 'sim_action',
  action_id: request.actionId,
  sim_id: request.sim.id,
  iccid: request.sim.iccid,
  action: request.action,
  from_status: request.sim.status,
  target_status: targetStatusOf(request.action),
  status: 'pending',
  reason: request.reason,
  requested_at: isoWithOffset(request.nowMs),
  requested_at_ms: request.nowMs,
  completed_at: null,
  failure: null,
  requested_by: request.requestedBy,
  customer_id: request.sim.customer_id,
  customer_path: [...request.sim.customer_path],
});

/** The lock of a pending action. */
const lockOf = (action: SimActionItem): SimActionPendingItem => ({
  ...key.simActionPending(action.sim_id),
  ...gsi1.pendingSimAction(action.requested_at_ms, action.action_id),
  type: 'sim_action_pending',
  action_id: action.action_id,
  sim_id: action.sim_id,
  from_status: action.from_status,
  target_status: action.target_status,
  requested_at_ms: action.requested_at_ms,
});


/** How writing a new action ended: written; another action pending (its lock); the SIM changed since it was read; or a conflict to try again. */
export type WriteOutcome = { outcome: 'written' } | { outcome: 'pending'; lock?: SimActionPendingItem } | { outcome: 'sim-changed' } | { outcome: 'conflict' };

/**
 * Writes a new pending action in one transaction: its lock (attribute_not_exists: at most one
 * pending action per SIM, so of two concurrent requests one wins), the action, and a check that
 * the SIM still has the owner and the status the rules were judged on.
 */
export const writeNewAction = async (table: ActionTable, action: SimActionItem, sim: SimItem): Promise<WriteOutcome> => {
  try {
    await table.db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: table.tableName,
              Item: lockOf(action),
              ConditionExpression: 'attribute_not_exists(PK)',
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
          { Put: { TableName: table.tableName, Item: action, ConditionExpression: 'attribute_not_exists(PK)' } },
          {
            ConditionCheck: {
              TableName: table.tableName,
              Key: key.sim(sim.id),
              ConditionExpression: '#status = :status AND customer_id = :owner',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':status': sim.status, ':owner': sim.customer_id },
            },
          },
        ],
      }),
    );
    return { outcome: 'written' };
  } catch (error) {
    if (!isTransactionCanceled(error)) throw error;
    const [lock, , check] = cancellationCodes(error);
    if (lock === 'ConditionalCheckFailed') {
      const item = (error as { CancellationReasons?: { Item?: Record<string, unknown> }[] }).CancellationReasons?.[0]?.Item;
      return { outcome: 'pending', ...(item ? { lock: unmarshalled(item) as unknown as SimActionPendingItem } : {}) };
    }
    if (check === 'ConditionalCheckFailed') return { outcome: 'sim-changed' };
    return { outcome: 'conflict' };
  }
};

/**
 * An item of a cancellation reason: the document client leaves those in DynamoDB's attribute
 * value form ({S: ...}, {N: ...}); only the lock's plain attributes are read.
 */
const unmarshalled = (item: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(item).map(([name, value]) => {
      const typed = value as { S?: string; N?: string } | undefined;
      if (typed && typeof typed === 'object' && ('S' in typed || 'N' in typed)) return [name, typed.S ?? Number(typed.N)];
      return [name, value];
    }),
  );

/** Removes a pending action and its lock (the request that wrote it could not hand it to the operator's queue). */
export const removePendingAction = async (table: ActionTable, action: SimActionItem): Promise<void> => {
  await table.db.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Delete: {
            TableName: table.tableName,
            Key: key.simActionPending(action.sim_id),
            ConditionExpression: 'action_id = :id',
            ExpressionAttributeValues: { ':id': action.action_id },
          },
        },
        {
          Delete: {
            TableName: table.tableName,
            Key: key.simAction(action.sim_id, action.action_id),
            ConditionExpression: '#status = :pending',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':pending': 'pending' },
          },
        },
      ],
    }),
  );
};

/** One action of a SIM, or undefined. */
export const readAction = async (table: ActionTable, simId: number, actionId: string, consistent = false): Promise<SimActionItem | undefined> => {
  const item = (await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.simAction(simId, actionId), ConsistentRead: consistent }))).Item;
  return item?.type === 'sim_action' ? (item as SimActionItem) : undefined;
};

/** The pending action's lock of a SIM, or undefined (strongly consistent). */
export const readPendingLock = async (table: ActionTable, simId: number): Promise<SimActionPendingItem | undefined> => {
  const item = (await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.simActionPending(simId), ConsistentRead: true }))).Item;
  return item?.type === 'sim_action_pending' ? (item as SimActionPendingItem) : undefined;
};

/**
 * Every action of a SIM, newest first: one Query of its partition (`begins_with(SK, ACTION#)`,
 * descending), more pages past 1 MB (about 2,500 actions). Read units grow with the SIM's
 * actions (about 300 bytes each: 10 actions a read unit), which one SIM asks for a few at a
 * time (one pending at once).
 */
export const listActions = async (table: ActionTable, simId: number): Promise<SimActionItem[]> => {
  const items: SimActionItem[] = [];
  for await (const page of queryPages(table.db, {
    TableName: table.tableName,
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': partition.sim(simId), ':prefix': sortKeyPrefix.simAction },
    ScanIndexForward: false,
  })) {
    for (const item of page) if (item.type === 'sim_action') items.push(item as SimActionItem);
  }
  return items;
};

/** How a pending action ends. */
export type Settlement = { status: 'completed' } | { status: 'failed'; failure: SimActionFailureItem };

/**
 * Ends a pending action (completed, or failed with why) and frees its SIM for the next one, in
 * one transaction conditional on the action still pending and its lock still its own: of two
 * concurrent endings (the feed's confirmation and the timeout's sweep) one wins. True when this
 * call ended it; false when it had ended already.
 */
export const settleAction = async (table: ActionTable, simId: number, actionId: string, settlement: Settlement, nowMs: number): Promise<boolean> => {
  for (let attempt = 1; ; attempt += 1) {
    const settled = await settleOnce(table, simId, actionId, settlement, nowMs);
    if (settled === true) recordMetric('SimActionsEnded', { outcome: settlement.status === 'completed' ? 'completed' : settlement.failure.code });
    if (settled !== 'conflict') return settled;
    // Another transaction on the same items at the same moment: try again, then give the work back.
    if (attempt >= 5) throw new TransientFailure(`action ${actionId} kept meeting other transactions; it is tried again`);
  }
};

const settleOnce = async (table: ActionTable, simId: number, actionId: string, settlement: Settlement, nowMs: number): Promise<boolean | 'conflict'> => {
  try {
    await table.db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: table.tableName,
              Key: key.simAction(simId, actionId),
              UpdateExpression: 'SET #status = :status, completed_at = :at, failure = :failure',
              ConditionExpression: '#status = :pending',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ':status': settlement.status,
                ':at': isoWithOffset(nowMs),
                ':failure': settlement.status === 'failed' ? settlement.failure : null,
                ':pending': 'pending',
              },
            },
          },
          {
            Delete: {
              TableName: table.tableName,
              Key: key.simActionPending(simId),
              ConditionExpression: 'action_id = :id',
              ExpressionAttributeValues: { ':id': actionId },
            },
          },
        ],
      }),
    );
    return true;
  } catch (error) {
    if (!isTransactionCanceled(error)) throw error;
    return cancellationCodes(error).includes('TransactionConflict') ? 'conflict' : false;
  }
};
