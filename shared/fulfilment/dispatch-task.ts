import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { sendUnlessConditionFails } from '../db/conditions';
import type { FulfilmentTaskItem, HeldStockUnit, OrderItem } from '../db/items';
import { gsi1, key } from '../db/keys';
import type { FulfilmentDeps } from './deps';

/**
 * Creates the dispatch task of a B2 order: its assigned SIMs await a person who picks,
 * assigns and posts them (status `awaiting_dispatch`, listed oldest first on GSI1
 * `FULFILMENT_TASKS#awaiting_dispatch`). Conditional on not existing, so a redelivery keeps
 * the first task.
 */
export const createDispatchTask = async (deps: FulfilmentDeps, order: OrderItem, units: HeldStockUnit[]): Promise<FulfilmentTaskItem> => {
  const createdAt = deps.now().toISOString();
  const task: FulfilmentTaskItem = {
    ...key.fulfilmentTask(order.id),
    ...gsi1.fulfilmentTaskByStatus('awaiting_dispatch', createdAt, order.id),
    type: 'fulfilment_task',
    order_id: order.id,
    status: 'awaiting_dispatch',
    units,
    lines: order.lines,
    customer_email: order.customer_email,
    ...(order.customer_name ? { customer_name: order.customer_name } : {}),
    ...(order.customer_phone ? { customer_phone: order.customer_phone } : {}),
    ...(order.shipping_address ? { shipping_address: order.shipping_address } : {}),
    created_at: createdAt,
  };
  await sendUnlessConditionFails(deps.db, new PutCommand({ TableName: deps.tableName, Item: task, ConditionExpression: 'attribute_not_exists(PK)' }));
  return task;
};
