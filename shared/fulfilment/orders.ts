import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { sendUnlessConditionFails } from '../db/conditions';
import type { FulfilmentEffectItem, HeldStockUnit, OrderItem, OrderStatus } from '../db/items';
import { key, partition } from '../db/keys';
import { queryPages } from '../db/query-pages';
import type { FulfilmentDeps } from './deps';

/** An order with its fulfilment records. */
export interface OrderWithEffects {
  order: OrderItem;
  effects: Map<string, FulfilmentEffectItem>;
}

/**
 * The order and its effect records in one strongly consistent Query of the order's
 * partition (`PK = ORDER#<id>`: the order, `EFFECT#...` and the dispatch task); undefined
 * when there is no order. Needs only the table (the local developer console reads it too).
 */
export const loadOrderWithEffects = async (deps: Pick<FulfilmentDeps, 'db' | 'tableName'>, orderId: string): Promise<OrderWithEffects | undefined> => {
  let order: OrderItem | undefined;
  const effects = new Map<string, FulfilmentEffectItem>();
  for await (const page of queryPages(deps.db, {
    TableName: deps.tableName,
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': partition.order(orderId) },
    ConsistentRead: true,
  })) {
    for (const item of page) {
      if (item.type === 'order') order = item as OrderItem;
      else if (item.type === 'fulfilment_effect') effects.set(String(item.effect), item as FulfilmentEffectItem);
    }
  }
  return order ? { order, effects } : undefined;
};

/**
 * Moves the order to `to` only from one of `from`; false when it is in another state.
 * `set` adds attributes written in the same update.
 */
export const moveOrder = async (
  deps: FulfilmentDeps,
  orderId: string,
  from: OrderStatus[],
  to: OrderStatus,
  set: Record<string, unknown> = {},
): Promise<boolean> => {
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = { ':to': to, ':now': deps.now().toISOString() };
  const assignments = ['#status = :to', 'updated_at = :now'];
  Object.entries(set).forEach(([attribute, value], index) => {
    names[`#a${index}`] = attribute;
    values[`:a${index}`] = value;
    assignments.push(`#a${index} = :a${index}`);
  });
  from.forEach((status, index) => {
    values[`:from${index}`] = status;
  });
  return sendUnlessConditionFails(
    deps.db,
    new UpdateCommand({
      TableName: deps.tableName,
      Key: key.order(orderId),
      UpdateExpression: `SET ${assignments.join(', ')}`,
      ConditionExpression: `#status IN (${from.map((_, index) => `:from${index}`).join(', ')})`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  );
};

/** Writes fulfilment facts onto the order (the account it went to, the SMS decision, replaced holds). */
export const setOrderFields = async (deps: FulfilmentDeps, orderId: string, fields: Record<string, unknown>): Promise<void> => {
  const entries = Object.entries(fields);
  await deps.db.send(
    new UpdateCommand({
      TableName: deps.tableName,
      Key: key.order(orderId),
      UpdateExpression: `SET ${[...entries.map((_, index) => `#f${index} = :f${index}`), 'updated_at = :now'].join(', ')}`,
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: Object.fromEntries(entries.map(([name], index) => [`#f${index}`, name])),
      ExpressionAttributeValues: {
        ...Object.fromEntries(entries.map(([, value], index) => [`:f${index}`, value])),
        ':now': deps.now().toISOString(),
      },
    }),
  );
};

/** Records the units finally held for the order (after replacements). */
export const setHeldUnits = (deps: FulfilmentDeps, orderId: string, units: HeldStockUnit[]) =>
  setOrderFields(deps, orderId, { held_units: units });
