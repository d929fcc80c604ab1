import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { holdStock } from '../checkout/stock-holds';
import { sendUnlessConditionFails } from '../db/conditions';
import type { HeldStockUnit, OrderItem, StockUnitItem } from '../db/items';
import { key } from '../db/keys';
import { isApiError } from '../errors/api-error';
import type { FulfilmentDeps } from './deps';
import { setHeldUnits } from './orders';

/** The units of a paid order, or why it could not have them. */
export type StockAssignment = { units: HeldStockUnit[] } | { unavailable: string };

/**
 * Turns one unit into an assignment to the order (`assigned_order`, hold removed): only while
 * the order holds it, or nobody does (a released or expired hold of this order that no other
 * checkout took). True when the unit is (now or already) the order's.
 */
const assignUnit = async (deps: FulfilmentDeps, orderId: string, unit: HeldStockUnit, nowSeconds: number): Promise<boolean> => {
  const assigned = await sendUnlessConditionFails(
    deps.db,
    new UpdateCommand({
      TableName: deps.tableName,
      Key: key.stockUnit(unit.kind, unit.iccid),
      UpdateExpression: 'SET assigned_order = :order REMOVE held_by, hold_expires_at',
      ConditionExpression:
        'attribute_exists(PK) AND attribute_not_exists(assigned_order) AND ' +
        '(held_by = :order OR attribute_not_exists(held_by) OR hold_expires_at < :now)',
      ExpressionAttributeValues: { ':order': orderId, ':now': nowSeconds },
    }),
  );
  if (assigned) return true;
  const { Item } = await deps.db.send(
    new GetCommand({ TableName: deps.tableName, Key: key.stockUnit(unit.kind, unit.iccid), ConsistentRead: true }),
  );
  return (Item as StockUnitItem | undefined)?.assigned_order === orderId;
};

/**
 * Assigns the stock a paid order held (B1 new eSIMs, B2 physical SIMs) to it, so that no
 * checkout can take it again. Each unit moves by a conditional write, so doing it again is
 * harmless. A unit lost meanwhile (the payment came after the order's holds were released
 * or had expired, and another checkout took the unit) is replaced by a free one, held with
 * checkout's holdStock and recorded on the order BEFORE it is assigned, so a worker that dies
 * halfway finds the replacement instead of taking another. When no free unit is left, the
 * answer is `unavailable` (the order goes to review).
 */
export const assignOrderStock = async (deps: FulfilmentDeps, order: OrderItem): Promise<StockAssignment> => {
  const nowSeconds = Math.floor(deps.now().getTime() / 1000);
  const units = order.held_units ?? [];
  const results = await Promise.all(units.map((unit) => assignUnit(deps, order.id, unit, nowSeconds)));
  const lost = units.filter((_, index) => !results[index]);
  if (lost.length === 0) return { units };

  const kept = units.filter((_, index) => results[index]);
  const replacements: HeldStockUnit[] = [];
  for (const kind of [...new Set(lost.map((unit) => unit.kind))]) {
    const count = lost.filter((unit) => unit.kind === kind).length;
    try {
      replacements.push(
        ...(await holdStock(
          { db: deps.db, tableName: deps.tableName },
          { kind, count, orderId: order.id, now: nowSeconds, expiresAt: nowSeconds + Math.round(deps.stockHoldMinutes * 60) },
        )),
      );
    } catch (error) {
      if (isApiError(error) && error.code === 'out_of_stock') {
        return { unavailable: `${count} ${kind} unit(s) held for the order were taken meanwhile and no free unit is left` };
      }
      throw error;
    }
  }
  const final = [...kept, ...replacements];
  await setHeldUnits(deps, order.id, final);
  for (const unit of replacements) {
    if (!(await assignUnit(deps, order.id, unit, nowSeconds))) {
      throw new Error(`replacement unit ${unit.iccid} held for order ${order.id} could not be assigned`);
    }
  }
  return { units: final };
};
