import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import type { OrderItem } from '../../shared/db/items';
import { key, partition, sortKeyPrefix } from '../../shared/db/keys';
import { post, serviceToken, stripeTestKey } from '../area-b/support/checkout-api';
import { startStandaloneStripeEmulator, type StandaloneStripeEmulator } from '../../local/stripe-emulator/standalone';
import { readOutbox } from '../area-b-fulfilment/support/outbox';
import { sendEvent, stripeId, webhookSecret } from '../area-b-fulfilment/support/stripe-events';
import { isRunning, spawnNpmStart, waitForReady, type StartedInstance } from '../support/npm-start';
import { eventually } from '../support/eventually';

/**
 * Issue 10, deliverable 7: `npm start -- --persist DIR` loses no paid order. The runtime is
 * killed (SIGKILL, its whole process group and DynamoDB Local's JVM) while it fulfils paid
 * orders, some payment events still queued and some in flight, and started again on the same
 * folder; the queues survive in DIR (issue 11), and every order completes exactly once
 * without any webhook being sent again.
 */

const orders = 10;
const instances: StartedInstance[] = [];
const temporary = mkdtempSync(join(tmpdir(), 'persist-crash-test-'));
const persistDir = join(temporary, 'data');
const outboxDir = join(temporary, 'outbox');
const seedFile = join(temporary, 'seed.json');
let stripe: StandaloneStripeEmulator | undefined;

const npmStart = (env: Record<string, string>): StartedInstance => spawnNpmStart(instances, env, ['--persist', persistDir]);

/** The process group of the DynamoDB Local JVM (and its watchdog shell) that keeps its data in persistDir. */
const dynamoDbGroup = (): number => {
  const lines = execFileSync('ps', ['-eo', 'pid=,pgid=,args='], { encoding: 'utf8' }).split('\n');
  const line = lines.find((candidate) => candidate.includes('DynamoDBLocal.jar') && candidate.includes(`-dbPath ${persistDir}`));
  if (!line) throw new Error(`no DynamoDB Local with -dbPath ${persistDir}`);
  return Number(line.trim().split(/\s+/)[1]);
};

const killGroup = (group: number) => {
  try {
    process.kill(-group, 'SIGKILL');
  } catch {
    /* gone */
  }
};

/** Receipt e-mails in the outbox, by order id. */
const receipts = (orderIds: string[]) => Object.fromEntries(orderIds.map((id) => [id, readOutbox(outboxDir, `${id}.receipt_email`).length]));

afterAll(async () => {
  for (const instance of instances) {
    if (isRunning(instance)) killGroup(instance.child.pid!);
  }
  try {
    killGroup(dynamoDbGroup());
  } catch {
    /* none left */
  }
  await stripe?.stop();
  rmSync(temporary, { recursive: true, force: true });
});

describe('npm start -- --persist DIR, killed during fulfilment', () => {
  it('completes every paid order exactly once after a restart, with no webhook sent again', async () => {
    stripe = await startStandaloneStripeEmulator({ secretKey: stripeTestKey });
    const iccids = Array.from({ length: orders }, (_, index) => `89445000000000077${String(index).padStart(2, '0')}`);
    writeFileSync(
      seedFile,
      JSON.stringify({
        plans: [{ sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', published: true, price: '12.00' }],
        stock: iccids.map((iccid) => ({ iccid, kind: 'esim' })),
      }),
    );
    const env = {
      PORT: '0',
      SEED_FILE: seedFile,
      EMAIL_OUTBOX_DIR: outboxDir,
      STOREFRONT_SERVICE_TOKEN: serviceToken,
      STRIPE_SECRET_KEY: stripeTestKey,
      STRIPE_API_BASE: stripe.url,
      STRIPE_WEBHOOK_SECRET: webhookSecret,
    };

    // 1. Paid orders, acknowledged; killed as soon as the first one is fulfilled.
    const first = npmStart(env);
    const firstUrl = await waitForReady(first, 150_000);
    const placed: Array<{ orderId: string; paymentIntentId: string; amount: number }> = [];
    for (let index = 0; index < orders; index += 1) {
      const answer = await post(firstUrl, '/api/v1/checkout', {
        cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }],
        customer_email: `crash-${index}@persist.example`,
        customer_country: 'GB',
      });
      expect(answer.status, answer.text).toBe(201);
      const orderId = (answer.body as { order_id: string }).order_id;
      const intent = stripe.requestFor(orderId)!;
      placed.push({ orderId, paymentIntentId: intent.paymentIntentId!, amount: intent.amount });
    }
    const orderIds = placed.map((order) => order.orderId);
    const jvm = dynamoDbGroup();
    const eventIds = placed.map(() => stripeId('evt'));
    const answers = await Promise.all(
      placed.map((order, index) =>
        sendEvent(firstUrl, 'payment_intent.succeeded', { ...order, eventId: eventIds[index] }),
      ),
    );
    expect(answers).toEqual(placed.map(() => ({ status: 200, contentType: 'application/json', body: { received: true } })));
    await eventually(() => expect(Object.values(receipts(orderIds)).some((count) => count > 0)).toBe(true), 30_000, 2);
    killGroup(first.child.pid!);
    killGroup(jvm);
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const sentBeforeKill = Object.values(receipts(orderIds)).reduce((sum, count) => sum + count, 0);
    // Killed during fulfilment: some orders were done, not all.
    expect(sentBeforeKill).toBeGreaterThan(0);
    expect(sentBeforeKill).toBeLessThan(orders);

    // 2. Started again on the same folder: nothing is sent to the webhook any more.
    const second = npmStart(env);
    const secondUrl = await waitForReady(second, 150_000);
    expect(secondUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const givenBack = second.stdout
      .split('\n')
      .filter((line) => line.includes('work of a stopped runtime given back'))
      .map((line) => JSON.parse(line) as { messages: number; leases: number });
    expect(givenBack).toHaveLength(1);
    // In flight at the kill: at most one batch (5) of the queued events; each lease was one of them.
    expect(givenBack[0]!.messages).toBeLessThanOrEqual(5);
    expect(givenBack[0]!.leases).toBeLessThanOrEqual(givenBack[0]!.messages);

    const endpoint = /DynamoDB Local\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(second.stdout)?.[1];
    expect(endpoint).toBeDefined();
    const db = DynamoDBDocumentClient.from(
      new DynamoDBClient({ endpoint, region: 'eu-west-2', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
    );
    try {
      const readOrder = async (orderId: string) =>
        (await db.send(new GetCommand({ TableName: 'sim-service', Key: key.order(orderId), ConsistentRead: true }))).Item as OrderItem;
      await eventually(
        async () => expect((await Promise.all(orderIds.map(readOrder))).map((order) => order.status)).toEqual(orderIds.map(() => 'fulfilled')),
        60_000,
        200,
      );

      // Exactly once: one receipt per order, every effect done (none unknown), no lease left.
      expect(receipts(orderIds)).toEqual(Object.fromEntries(orderIds.map((id) => [id, 1])));
      expect(readdirSync(outboxDir).filter((name) => name.endsWith('.eml'))).toHaveLength(orders);
      for (const orderId of orderIds) {
        const effects = await db.send(
          new QueryCommand({
            TableName: 'sim-service',
            KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
            ExpressionAttributeValues: { ':pk': partition.order(orderId), ':prefix': sortKeyPrefix.fulfilmentEffect },
            ConsistentRead: true,
          }),
        );
        expect(Object.fromEntries((effects.Items ?? []).map((item) => [item.effect, item.status]))).toEqual({
          stock: 'done',
          account: 'done',
          devices: 'done',
          receipt_email: 'done',
        });
        const order = await readOrder(orderId);
        expect(order.fulfilment_lease_owner).toBeUndefined();
        const device = (await db.send(new GetCommand({ TableName: 'sim-service', Key: key.device(order.held_units[0]!.iccid) }))).Item;
        expect(device).toMatchObject({ owner: order.customer_email, order_id: orderId });
      }
      // One payment intent per order, and the test sent exactly one webhook per order.
      expect(stripe.requests).toHaveLength(orders);
      expect(answers).toHaveLength(orders);
    } finally {
      db.destroy();
    }

    second.child.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });
  }, 360_000);
});
