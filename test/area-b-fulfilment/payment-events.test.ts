import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { releaseDeadWorkersLeases } from '../../local/redrive';
import { createQueues, startSqsLocal } from '../../local/sqs-local';
import { key } from '../../shared/db/keys';
import type { FulfilmentMessage } from '../../shared/fulfilment/message';
import { documents, readOrder, resetStock } from '../area-b/support/checkout-api';
import { eventually } from '../support/eventually';
import { testDynamoClient, testSqsClient } from '../support/resources';
import { useShopRuntime } from '../support/shop-runtime';
import { readOutbox } from './support/outbox';
import { placeOrder, waitForQueueIdle, waitForStatus, type PlacedOrder } from './support/shop';
import { sendEvent, stripeId } from './support/stripe-events';

// Payment events live in the fulfilment queue only (docs/fulfilment.md): the webhook writes
// nothing to the table, and what a killed local runtime leaves behind (in-flight messages,
// order leases) is given back at its next start (local/redrive.ts, local/sqs-local.ts).

const seed = {
  plans: [{ sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', published: true, price: '12.00' }],
  stock: [],
};

const db = documents();
const sqs = testSqsClient();
const dynamo = testDynamoClient();
const received = { status: 200, contentType: 'application/json', body: { received: true } };

const { runtime, stripe } = useShopRuntime(seed, { db });

afterAll(() => {
  sqs.destroy();
  dynamo.destroy();
});

const buyEsim = async (email: string, iccid: string) => {
  await resetStock(db, runtime.tableName, 'esim', [iccid]);
  return placeOrder(runtime, stripe, 'esim', { cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }], customer_email: email, customer_country: 'GB' });
};

/** Every item of the table whose partition key starts with this prefix. */
const itemsStartingWith = async (prefix: string) =>
  (
    await db.send(
      new ScanCommand({
        TableName: runtime.tableName,
        FilterExpression: 'begins_with(PK, :prefix)',
        ExpressionAttributeValues: { ':prefix': prefix },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

const messageOf = (order: PlacedOrder, eventId: string): FulfilmentMessage => ({
  event_id: eventId,
  type: 'payment_intent.succeeded',
  created: Math.floor(Date.now() / 1000),
  order_id: order.orderId,
  payment_intent_id: order.paymentIntentId,
  amount: order.amount,
  currency: 'gbp',
});

describe('the webhook keeps payment events in the queue only', () => {
  it('writes nothing to the table: the event is fulfilled from its queue message, a replay changes nothing', async () => {
    const order = await buyEsim('record@events.example', '8944500000000008801');
    const eventId = stripeId('evt');
    expect(await sendEvent(runtime.baseUrl, 'payment_intent.succeeded', { ...order, eventId })).toEqual(received);
    await waitForStatus(db, runtime.tableName, order.orderId, 'fulfilled');
    expect(await sendEvent(runtime.baseUrl, 'payment_intent.succeeded', { ...order, eventId })).toEqual(received);
    await waitForQueueIdle(sqs, runtime.queues.fulfilment.url);
    expect(readOutbox(runtime.env.EMAIL_OUTBOX_DIR!, order.orderId)).toHaveLength(1);
    expect(await itemsStartingWith('PAYMENT_EVENT')).toEqual([]);
  });
});

describe('a killed runtime’s work given back at start (local/redrive.ts)', () => {
  it('gives back the lease a killed worker held, so the order is fulfilled at once', async () => {
    const order = await buyEsim('redrive@events.example', '8944500000000008804');
    const eventId = stripeId('evt');
    await db.send(
      new UpdateCommand({
        TableName: runtime.tableName,
        Key: key.order(order.orderId),
        UpdateExpression: 'SET fulfilment_lease_owner = :owner, fulfilment_lease_until = :until',
        ExpressionAttributeValues: { ':owner': 'a-killed-worker', ':until': Date.now() + 90_000 },
      }),
    );
    expect(await releaseDeadWorkersLeases(dynamo, runtime.tableName)).toBe(1);
    expect(await readOrder(db, runtime.tableName, order.orderId)).not.toHaveProperty('fulfilment_lease_owner');
    // The message that survived in the persisted queue is delivered again.
    await sqs.send(new SendMessageCommand({ QueueUrl: runtime.queues.fulfilment.url, MessageBody: JSON.stringify(messageOf(order, eventId)) }));
    // Well within the lease wait (20 s) a held lease would have cost.
    await waitForStatus(db, runtime.tableName, order.orderId, 'fulfilled', 10_000);
    await eventually(async () => expect(await readOrder(db, runtime.tableName, order.orderId)).not.toHaveProperty('fulfilment_lease_owner'));
    expect(readOutbox(runtime.env.EMAIL_OUTBOX_DIR!, order.orderId)).toHaveLength(1);
    expect(await releaseDeadWorkersLeases(dynamo, runtime.tableName)).toBe(0);
  });
});

describe('the SQS emulator with a data folder (local/sqs-local.ts)', () => {
  it('keeps queued and in-flight messages across a restart; in-flight ones are made visible at once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sqs-local-test-'));
    const client = (endpoint: string) =>
      new SQSClient({ endpoint, region: 'eu-west-2', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    try {
      const first = await startSqsLocal({ dataDir });
      const before = client(first.endpoint);
      const queues = await createQueues(before, '');
      for (const body of ['in-flight', 'queued']) {
        await before.send(new SendMessageCommand({ QueueUrl: queues.fulfilment.url, MessageBody: body }));
      }
      const taken = await before.send(new ReceiveMessageCommand({ QueueUrl: queues.fulfilment.url, MaxNumberOfMessages: 1 }));
      expect(taken.Messages?.map((message) => message.Body)).toEqual(['in-flight']);
      before.destroy();
      await first.stop();

      const second = await startSqsLocal({ dataDir });
      const after = client(second.endpoint);
      try {
        const again = await createQueues(after, '');
        expect(again.fulfilment.url).toBe(queues.fulfilment.url); // the queue as it was (its URL keeps the first port)
        expect(second.inFlightReleased).toBe(1);
        const bodies: string[] = [];
        for (let attempt = 0; attempt < 5 && bodies.length < 2; attempt += 1) {
          const page = await after.send(new ReceiveMessageCommand({ QueueUrl: again.fulfilment.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
          bodies.push(...(page.Messages ?? []).map((message) => message.Body!));
        }
        expect(bodies.sort()).toEqual(['in-flight', 'queued']);
      } finally {
        after.destroy();
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
