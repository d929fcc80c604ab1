/**
 * The orders as the developer console lists them: every `order` item of the table (one Scan:
 * the local table is small, and the service itself has no "all orders" access pattern, on
 * purpose), newest first, each read again with its fulfilment effects through fulfilment's own
 * query (shared/fulfilment/orders.ts loadOrderWithEffects, the `ORDER#<id>` partition built in
 * shared/db/keys.ts), so the console shows exactly what fulfilment sees. Local runtime only.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FulfilmentEffectItem, OrderItem } from '../../shared/db/items';
import { loadOrderWithEffects } from '../../shared/fulfilment/orders';
import { scanItemsOfType } from '../scan-items';

/** Where the console reads orders. */
export interface OrderSource {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/** One order with its fulfilment effects (oldest claim first). */
export interface ConsoleOrder {
  order: OrderItem;
  effects: FulfilmentEffectItem[];
}

/** The ids and creation times of every order in the table (all Scan pages). */
const orderIds = async (source: OrderSource): Promise<Array<{ id: string; created_at: string }>> =>
  (await scanItemsOfType<{ id: unknown; created_at?: unknown }>(source, 'order', ['id', 'created_at'])).map((item) => ({
    id: String(item.id),
    created_at: String(item.created_at ?? ''),
  }));

/** The newest `limit` orders with their effects; `total` counts every order in the table. */
export const listOrders = async (source: OrderSource, limit: number): Promise<{ orders: ConsoleOrder[]; total: number }> => {
  const ids = (await orderIds(source)).sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
  const loaded = await Promise.all(ids.slice(0, limit).map(({ id }) => loadOrderWithEffects(source, id)));
  const orders = loaded
    .filter((entry) => entry !== undefined)
    .map(({ order, effects }) => ({
      order,
      effects: [...effects.values()].sort((a, b) => a.claimed_at.localeCompare(b.claimed_at) || a.effect.localeCompare(b.effect)),
    }));
  return { orders, total: ids.length };
};
