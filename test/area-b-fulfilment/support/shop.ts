import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import type { LocalRuntime } from '../../../local/runtime';
import type {
  AccountItem,
  DeviceItem,
  DeviceTopupItem,
  FulfilmentEffectItem,
  FulfilmentTaskItem,
  OrderItem,
  OrderStatus,
  StockUnitItem,
} from '../../../shared/db/items';
import { key, partition, sortKeyPrefix } from '../../../shared/db/keys';
import { post, readOrder } from '../../area-b/support/checkout-api';
import type { StripeStandIn } from '../../support/shop-runtime';
import { eventually } from '../../support/eventually';
import { sendEvent } from './stripe-events';

/** The checkout path of each endpoint. */
export const checkoutPath = {
  esim: '/api/v1/checkout',
  physical: '/api/v1/physical-checkout',
  iot: '/api/v1/iot-physical-checkout',
} as const;

/** An order placed through a checkout, with its payment intent as the Stripe stand-in made it. */
export interface PlacedOrder {
  orderId: string;
  paymentIntentId: string;
  /** Pence. */
  amount: number;
}

/** Places an order through a checkout endpoint; fails the test unless it is a 201. */
export const placeOrder = async (
  runtime: LocalRuntime,
  stripe: StripeStandIn,
  endpoint: keyof typeof checkoutPath,
  body: Record<string, unknown>,
): Promise<PlacedOrder> => {
  const answer = await post(runtime.baseUrl, checkoutPath[endpoint], body);
  expect(answer.status, answer.text).toBe(201);
  const orderId = (answer.body as { order_id: string }).order_id;
  const intent = stripe.requestFor(orderId)!;
  return { orderId, paymentIntentId: intent.paymentIntentId!, amount: intent.amount };
};

/** Waits (bounded) until the order reaches `status`, and returns it. */
export const waitForStatus = (db: DynamoDBDocumentClient, tableName: string, orderId: string, status: OrderStatus, timeoutMs = 15_000) =>
  eventually(async () => {
    const order = await readOrder(db, tableName, orderId);
    expect(order?.status).toBe(status);
    return order!;
  }, timeoutMs);

const get = async <T>(db: DynamoDBDocumentClient, tableName: string, itemKey: { PK: string; SK: string }): Promise<T | undefined> =>
  (await db.send(new GetCommand({ TableName: tableName, Key: itemKey, ConsistentRead: true }))).Item as T | undefined;

/** The account of an e-mail. */
export const readAccount = (db: DynamoDBDocumentClient, tableName: string, email: string) =>
  get<AccountItem>(db, tableName, key.account(email));

/** The device of an ICCID. */
export const readDevice = (db: DynamoDBDocumentClient, tableName: string, iccid: string) => get<DeviceItem>(db, tableName, key.device(iccid));

/** The stock unit of an ICCID. */
export const readUnit = (db: DynamoDBDocumentClient, tableName: string, kind: string, iccid: string) =>
  get<StockUnitItem>(db, tableName, key.stockUnit(kind, iccid));

/** The dispatch task of a B2 order. */
export const readTask = (db: DynamoDBDocumentClient, tableName: string, orderId: string) =>
  get<FulfilmentTaskItem>(db, tableName, key.fulfilmentTask(orderId));

const queryPrefix = async <T>(db: DynamoDBDocumentClient, tableName: string, pk: string, prefix: string): Promise<T[]> =>
  ((
    await db.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
        ConsistentRead: true,
      }),
    )
  ).Items ?? []) as T[];

/** The top-ups of a device. */
export const readTopups = (db: DynamoDBDocumentClient, tableName: string, iccid: string) =>
  queryPrefix<DeviceTopupItem>(db, tableName, partition.device(iccid), sortKeyPrefix.deviceTopup);

/** The fulfilment effect records of an order, by effect name. */
export const readEffects = async (db: DynamoDBDocumentClient, tableName: string, orderId: string) =>
  Object.fromEntries(
    (await queryPrefix<FulfilmentEffectItem>(db, tableName, partition.order(orderId), sortKeyPrefix.fulfilmentEffect)).map((item) => [
      item.effect,
      item,
    ]),
  );

/** A message the SMS simulator received. */
export interface SimulatedSms {
  reference: string;
  to: string;
  text: string;
}

/** What the SMS simulator received (GET /messages), only those whose reference starts with `orderId` when given. */
export const smsMessages = async (simulatorUrl: string, orderId?: string): Promise<SimulatedSms[]> => {
  const response = await fetch(`${simulatorUrl}/messages`);
  const { messages } = (await response.json()) as { messages: SimulatedSms[] };
  return messages
    .filter((message) => orderId === undefined || message.reference.startsWith(orderId))
    .map(({ reference, to, text }) => ({ reference, to, text }));
};

/** Waits (bounded) until a queue has no message waiting or in flight: every delivery was processed. */
export const waitForQueueIdle = (sqs: SQSClient, queueUrl: string, timeoutMs = 15_000) =>
  eventually(async () => {
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
      }),
    );
    expect(Attributes).toMatchObject({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
    });
  }, timeoutMs, 100);

/** Sends a signed payment_intent.succeeded for the order and waits (bounded) until it is fulfilled. */
export const payAndWait = async (
  runtime: LocalRuntime,
  db: DynamoDBDocumentClient,
  order: PlacedOrder,
  status: OrderStatus = 'fulfilled',
): Promise<OrderItem> => {
  const answer = await sendEvent(runtime.baseUrl, 'payment_intent.succeeded', {
    orderId: order.orderId,
    paymentIntentId: order.paymentIntentId,
    amount: order.amount,
  });
  expect(answer).toEqual({ status: 200, contentType: 'application/json', body: { received: true } });
  return waitForStatus(db, runtime.tableName, order.orderId, status);
};
