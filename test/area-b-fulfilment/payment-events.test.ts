import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redriveUnfinishedPayments } from '../../local/redrive';
import type { LocalRuntime } from '../../local/runtime';
import type { PaymentEventItem } from '../../shared/db/items';
import { gsi1Partition, key } from '../../shared/db/keys';
import { EmailNotSentError } from '../../shared/adapters/email/mailer';
import { fulfilmentRecordProcessor } from '../../shared/fulfilment/consumer';
import { functionConfigs } from '../../shared/config/function-config';
import { readConfiguration } from '../../shared/config/variables';
import { fulfilmentDeps } from '../../shared/fulfilment/deps';
import type { FulfilmentMessage } from '../../shared/fulfilment/message';
import { recordPaymentEvent } from '../../shared/fulfilment/payment-events';
import { documents, readOrder, resetStock } from '../area-b/support/checkout-api';
import type { StripeStandIn } from '../support/shop-runtime';
import { eventually } from '../local/eventually';
import { testDynamoClient, testSqsClient } from '../support/resources';
import { startShopRuntime } from '../support/shop-runtime';
import { readOutbox } from './support/outbox';
import { placeOrder, waitForQueueIdle, waitForStatus, type PlacedOrder } from './support/shop';
import { sendEvent, stripeId } from './support/stripe-events';

const seed = {
  plans: [{ sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', published: true, price: '12.00' }],
  stock: [],
};

let runtime: LocalRuntime;
let stripe: StripeStandIn;
const db = documents();
const sqs = testSqsClient();
const dynamo = testDynamoClient();
const received = { status: 200, contentType: 'application/json', body: { received: true } };
/** The fulfilment consumer's deps on the runtime's configuration. */
const runtimeDeps = () => fulfilmentDeps(readConfiguration(functionConfigs['fulfil-order'], runtime.env));

beforeAll(async () => {
  ({ runtime, stripe } = await startShopRuntime(seed));
});

afterAll(async () => {
  await runtime?.stop();
  await stripe?.stop();
  db.destroy();
  sqs.destroy();
  dynamo.destroy();
});

const buyEsim = async (email: string, iccid: string) => {
  await resetStock(db, runtime.tableName, 'esim', [iccid]);
  return placeOrder(runtime, stripe, 'esim', { cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }], customer_email: email, customer_country: 'GB' });
};

const readRecord = async (eventId: string) =>
  (await db.send(new GetCommand({ TableName: runtime.tableName, Key: key.paymentEvent(eventId), ConsistentRead: true }))).Item as
    | PaymentEventItem
    | undefined;

const unfinishedIds = async () =>
  (
    (
      await db.send(
        new QueryCommand({
          TableName: runtime.tableName,
          IndexName: 'GSI1',
          KeyConditionExpression: 'GSI1PK = :pk',
          ExpressionAttributeValues: { ':pk': gsi1Partition.unfinishedPaymentEvents },
        }),
      )
    ).Items ?? []
  ).map((item) => item.event_id as string);

const messageOf = (order: PlacedOrder, eventId: string): FulfilmentMessage => ({
  event_id: eventId,
  type: 'payment_intent.succeeded',
  created: Math.floor(Date.now() / 1000),
  order_id: order.orderId,
  payment_intent_id: order.paymentIntentId,
  amount: order.amount,
  currency: 'gbp',
});

describe('the payment-event record', () => {
  it('is written by the webhook before the event is queued, and finished with the outcome once the consumer is done', async () => {
    const order = await buyEsim('record@events.example', '8944500000000008801');
    const eventId = stripeId('evt');
    const before = Date.now();
    expect(await sendEvent(runtime.baseUrl, 'payment_intent.succeeded', { ...order, eventId })).toEqual(received);
    await waitForStatus(db, runtime.tableName, order.orderId, 'fulfilled');
    const record = await eventually(async () => {
      const found = (await readRecord(eventId))!;
      expect(found.status).toBe('finished');
      return found;
    });
    expect(record).toEqual({
      ...key.paymentEvent(eventId),
      type: 'payment_event',
      event_id: eventId,
      order_id: order.orderId,
      status: 'finished',
      outcome: 'fulfilled',
      message: expect.any(String),
      received_at: expect.any(String),
      finished_at: expect.any(String),
      expires_at: expect.any(Number),
    });
    expect(JSON.parse(record.message)).toEqual({ ...messageOf(order, eventId), created: expect.any(Number) });
    expect(record.expires_at! - Math.floor(before / 1000)).toBeGreaterThanOrEqual(30 * 86_400 - 5);
    expect(record.expires_at! - Math.floor(before / 1000)).toBeLessThanOrEqual(30 * 86_400 + 60);
    expect(await unfinishedIds()).not.toContain(eventId);

    // A replay of the event is queued again, changes nothing and leaves the record as it was.
    expect(await sendEvent(runtime.baseUrl, 'payment_intent.succeeded', { ...order, eventId })).toEqual(received);
    await waitForQueueIdle(sqs, runtime.queues.fulfilment.url);
    expect(await readRecord(eventId)).toEqual(record);
    expect(readOutbox(runtime.env.EMAIL_OUTBOX_DIR!, order.orderId)).toHaveLength(1);
  });

  it('is not written for an event the service does not act on', async () => {
    const order = await buyEsim('ignored@events.example', '8944500000000008802');
    const [refund, noOrder] = [stripeId('evt'), stripeId('evt')];
    expect(await sendEvent(runtime.baseUrl, 'charge.refunded', { ...order, eventId: refund })).toEqual(received);
    expect(await sendEvent(runtime.baseUrl, 'payment_intent.succeeded', { ...order, orderId: undefined, eventId: noOrder })).toEqual(received);
    expect([await readRecord(refund), await readRecord(noOrder)]).toEqual([undefined, undefined]);
  });

  it('stays unfinished while the message is retried, is dead_lettered at its last receive, and is finished by a redrive of the DLQ', async () => {
    const order = await buyEsim('dead@events.example', '8944500000000008803');
    const eventId = stripeId('evt');
    const message = messageOf(order, eventId);
    await recordPaymentEvent({ db, tableName: runtime.tableName }, message, JSON.stringify(message), new Date());
    const refusing = { send: async () => { throw new EmailNotSentError('SES refused the message: MessageRejected'); } };
    const process = fulfilmentRecordProcessor({ ...runtimeDeps(), mailer: () => refusing });
    const record = (receiveCount: number) =>
      ({ messageId: `m-${receiveCount}`, body: JSON.stringify(message), attributes: { ApproximateReceiveCount: String(receiveCount) } }) as unknown as SQSRecord;

    await expect(process(record(1), {} as Context)).rejects.toThrow('SES refused the message: MessageRejected');
    expect(await readRecord(eventId)).toMatchObject({ status: 'unfinished', GSI1PK: gsi1Partition.unfinishedPaymentEvents });
    await expect(process(record(5), {} as Context)).rejects.toThrow('SES refused the message: MessageRejected');
    const dead = (await readRecord(eventId))!;
    expect(dead).toMatchObject({ status: 'dead_lettered', outcome: 'SES refused the message: MessageRejected', expires_at: expect.any(Number) });
    expect(dead).not.toHaveProperty('GSI1PK');
    expect(await unfinishedIds()).not.toContain(eventId);

    // A person redrives the dead-letter queue once the cause is fixed: the record ends finished.
    const working = fulfilmentRecordProcessor(runtimeDeps());
    await working(record(1), {} as Context);
    expect(await readRecord(eventId)).toMatchObject({ status: 'finished', outcome: 'fulfilled' });
    expect(readOutbox(runtime.env.EMAIL_OUTBOX_DIR!, order.orderId)).toHaveLength(1);
  });
});

describe('re-drive at start (local/redrive.ts)', () => {
  it('queues every unfinished event again and gives back the lease a killed worker held, so the order is fulfilled at once', async () => {
    const order = await buyEsim('redrive@events.example', '8944500000000008804');
    const eventId = stripeId('evt');
    const message = messageOf(order, eventId);
    // What a runtime killed after acknowledging the event, while its worker held the order, leaves.
    await recordPaymentEvent({ db, tableName: runtime.tableName }, message, JSON.stringify(message), new Date());
    await db.send(
      new UpdateCommand({
        TableName: runtime.tableName,
        Key: key.order(order.orderId),
        UpdateExpression: 'SET fulfilment_lease_owner = :owner, fulfilment_lease_until = :until',
        ExpressionAttributeValues: { ':owner': 'a-killed-worker', ':until': Date.now() + 90_000 },
      }),
    );
    expect(await unfinishedIds()).toEqual([eventId]);

    const result = await redriveUnfinishedPayments({ dynamo, sqs, tableName: runtime.tableName, queueUrl: runtime.queues.fulfilment.url });
    expect(result).toEqual({ events: 1, leases: 1 });
    // Well within the lease wait (20 s) a held lease would have cost.
    await waitForStatus(db, runtime.tableName, order.orderId, 'fulfilled', 10_000);
    await eventually(async () => expect(await readOrder(db, runtime.tableName, order.orderId)).not.toHaveProperty('fulfilment_lease_owner'));
    await eventually(async () => expect(await readRecord(eventId)).toMatchObject({ status: 'finished', outcome: 'fulfilled' }));
    expect(readOutbox(runtime.env.EMAIL_OUTBOX_DIR!, order.orderId)).toHaveLength(1);

    // Nothing is left to re-drive.
    expect(await redriveUnfinishedPayments({ dynamo, sqs, tableName: runtime.tableName, queueUrl: runtime.queues.fulfilment.url })).toEqual({
      events: 0,
      leases: 0,
    });
  });
});
