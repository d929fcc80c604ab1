import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { localSecretKey } from '../../local/stripe-emulator';
import { startTestRuntime, useTestRuntime } from '../support/runtime';
import { testDynamoClient } from '../support/resources';

const bearerToken = 'bearer_rt01_Qx7Lp2Vn9Rb4Tc8W';
const apiKey = 'devkey_rt01_Zt7wKp3Mv6Nq1Hs5';
const seed = {
  customers: [{ id: 'acme', name: 'Acme Ltd', parent: null, sms_enabled: true }],
  users: [{ id: 'u-ada', email: 'ada@acme.example', customer: 'acme', active: true, roles: ['developer'] }],
  bearer_tokens: [{ token: bearerToken, user: 'u-ada', revoked: false }],
  api_keys: [{ key: apiKey, customer: 'acme', revoked: false }],
  plans: [{ sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', published: true, price: '12.00' }],
};
const developerHeaders = { Authorization: `Bearer ${bearerToken}`, 'X-Customer-API-Key': apiKey };

const tableNameBefore = process.env.TABLE_NAME;

const runtime = useTestRuntime(() => {
  process.env.STRIPE_SECRET_KEY = 'sk_test_from_the_shell';
  return { seed, env: { CALLBACK_ALLOWED_HOSTS: 'localhost,127.0.0.1' } };
});

const notFound = { detail: 'Not found.', code: 'not_found' };

describe('local runtime', () => {
  it.each([
    ['GET', '/'],
    ['GET', '/nope'],
    ['GET', '/developer/api/nope/'],
    ['POST', '/developer/api/sims/1/unknown'],
    ['POST', '/api/v1/nothing-here'],
    ['GET', '/developer/api'],
  ])('answers %s %s with the JSON 404 of the fallbacks', async (method, path) => {
    // Area A authenticates before it answers 404 (/developer/api itself too), so its requests carry the seed's credentials.
    const headers = path.startsWith('/developer/api') ? developerHeaders : undefined;
    const response = await fetch(`${runtime.baseUrl}${path}`, { method, headers });
    expect({ status: response.status, type: response.headers.get('content-type'), body: await response.json() }).toEqual({
      status: 404,
      type: 'application/json',
      body: notFound,
    });
  });

  it('hands the handlers the table, endpoints, queue URLs (the stream consumers\' failure queues too), demo secrets and its own base URL', () => {
    expect(runtime.env).toMatchObject({
      TABLE_NAME: runtime.tableName,
      AWS_REGION: 'eu-west-2',
      DYNAMODB_ENDPOINT: runtime.dynamodbEndpoint,
      SQS_ENDPOINT: runtime.sqsEndpoint,
      CALLBACK_QUEUE_URL: runtime.queues.callbacks.url,
      FULFILMENT_QUEUE_URL: runtime.queues.fulfilment.url,
      // The stream consumers' failure queues, where they set aside what they cannot process.
      LIFECYCLE_FAILURE_QUEUE_URL: runtime.streamFailureQueues['publish-lifecycle-events'],
      SIM_LISTS_FAILURE_QUEUE_URL: runtime.streamFailureQueues['maintain-sim-lists'],
      SMS_PROVIDER_URL: runtime.smsSimulatorUrl,
      PUBLIC_BASE_URL: runtime.baseUrl,
      // The hosts given, then the webhook inbox's own origin.
      CALLBACK_ALLOWED_HOSTS: `localhost,127.0.0.1,${runtime.inbox.origin}`,
    });
    for (const name of ['STOREFRONT_SERVICE_TOKEN', 'SMS_PROVIDER_TOKEN', 'SMS_RECEIPT_SECRET', 'EMAIL_OUTBOX_DIR']) {
      expect(runtime.env[name]).toMatch(/.+/);
    }
    expect(runtime.env.STRIPE_WEBHOOK_SECRET).toMatch(/^whsec_/);
    for (const [name, value] of Object.entries(runtime.env)) expect(process.env[name]).toBe(value);
    // Not given: the embedded Stripe emulator, whatever the shell had.
    expect(process.env.STRIPE_SECRET_KEY).toBe(localSecretKey);
    expect(runtime.env.STRIPE_SECRET_KEY).toBe(localSecretKey);
    expect(runtime.env.STRIPE_API_BASE).toBe(`${runtime.baseUrl}/_local/stripe`);
    expect(runtime.payments.mode).toBe('emulator');
  });

  it('loads the seed into its fresh table', async () => {
    const client = testDynamoClient();
    const { Items } = await client.send(new ScanCommand({ TableName: runtime.tableName }));
    client.destroy();
    // Requests made by other tests may have added items of other types (rate-limit counters).
    const seededTypes = Object.keys(runtime.seeded?.counts ?? {});
    expect(seededTypes.length).toBeGreaterThanOrEqual(5);
    const counts: Record<string, number> = {};
    for (const item of Items ?? []) {
      const type = item.type?.S;
      if (type && seededTypes.includes(type)) counts[type] = (counts[type] ?? 0) + 1;
    }
    expect(counts).toEqual(runtime.seeded?.counts);
  });

  it('restores process.env when it stops', async () => {
    const second = await startTestRuntime();
    expect(process.env.TABLE_NAME).toBe(second.tableName);
    await second.stop();
    expect(process.env.TABLE_NAME).toBe(runtime.tableName);
    expect(tableNameBefore).toBeUndefined();
    expect(process.env.STRIPE_SECRET_KEY).toBe(localSecretKey);
  });
});
