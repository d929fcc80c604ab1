import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { sendUnlessConditionFails } from '../db/conditions';
import type { DeviceItem, DeviceTopupItem, HeldStockUnit, OrderItem, OrderLine } from '../db/items';
import { key } from '../db/keys';
import type { FulfilmentDeps } from './deps';

/** One eSIM an order provisions, with the plan it was bought for. */
export interface ProvisionedEsim {
  iccid: string;
  sku: string;
  planName: string;
}

/** One top-up an order applied. */
export interface AppliedTopup {
  iccid: string;
  sku: string;
  planName: string;
}

/**
 * Pairs the order's units with its new-eSIM lines in line order (a line of quantity n takes
 * the next n units), so each device knows its plan.
 */
export const esimsOf = (order: OrderItem, units: HeldStockUnit[]): ProvisionedEsim[] => {
  const esimUnits = units.filter((unit) => unit.kind === 'esim');
  const plans: OrderLine[] = order.lines
    .filter((line) => line.topup_iccid === undefined)
    .flatMap((line) => Array.from({ length: line.quantity }, () => line));
  return esimUnits.map((unit, index) => ({
    iccid: unit.iccid,
    sku: plans[index]?.sku ?? plans[plans.length - 1]?.sku ?? '',
    planName: plans[index]?.name ?? plans[plans.length - 1]?.name ?? '',
  }));
};

/** The top-up lines of an order. */
export const topupsOf = (order: OrderItem): Array<AppliedTopup & { lineIndex: number }> =>
  order.lines.flatMap((line, lineIndex) =>
    line.topup_iccid !== undefined ? [{ iccid: line.topup_iccid, sku: line.sku, planName: line.name, lineIndex }] : [],
  );

/**
 * Makes each assigned eSIM a device owned by the buyer's account (`owner` = the account's
 * key e-mail, unassigned). A conditional put: a device this order already created is left as
 * it is (a redelivery), and a device of another owner is never overwritten (an error).
 */
export const provisionDevices = async (deps: FulfilmentDeps, order: OrderItem, ownerEmail: string, esims: ProvisionedEsim[]): Promise<void> => {
  const now = deps.now().toISOString();
  await Promise.all(
    esims.map(async (esim) => {
      const device: DeviceItem = {
        ...key.device(esim.iccid),
        type: 'device',
        iccid: esim.iccid,
        owner: ownerEmail,
        assigned_to: null,
        order_id: order.id,
        plan_sku: esim.sku,
        plan_name: esim.planName,
        created_at: now,
      };
      const created = await sendUnlessConditionFails(
        deps.db,
        new PutCommand({
          TableName: deps.tableName,
          Item: device,
          ConditionExpression: 'attribute_not_exists(PK) OR order_id = :order',
          ExpressionAttributeValues: { ':order': order.id },
        }),
      );
      if (!created) throw new Error(`eSIM ${esim.iccid} of order ${order.id} is already a device of another order`);
    }),
  );
};

/**
 * Records each top-up line on its device (`DEVICE#<iccid>` / `TOPUP#<order>#<line>`), once:
 * the put is conditional on the item not existing. The top-up belongs to the device, so
 * unassigning the device later does not touch it.
 */
export const applyTopups = async (deps: FulfilmentDeps, order: OrderItem): Promise<AppliedTopup[]> => {
  const now = deps.now().toISOString();
  const topups = topupsOf(order);
  await Promise.all(
    topups.map(async (topup) => {
      const item: DeviceTopupItem = {
        ...key.deviceTopup(topup.iccid, order.id, topup.lineIndex),
        type: 'device_topup',
        iccid: topup.iccid,
        order_id: order.id,
        line_index: topup.lineIndex,
        sku: topup.sku,
        plan_name: topup.planName,
        bought_by: order.customer_email_lower,
        created_at: now,
      };
      await sendUnlessConditionFails(deps.db, new PutCommand({ TableName: deps.tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' }));
    }),
  );
  return topups.map(({ iccid, sku, planName }) => ({ iccid, sku, planName }));
};
