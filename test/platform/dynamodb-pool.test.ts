import { ListTablesCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { startDynamoDbPool, type DynamoDbPool } from '../support/dynamodb-pool';
import { eventually } from '../support/eventually';

/**
 * The test run's pool of DynamoDB Local instances (test/support/dynamodb-pool.ts): an instance
 * serves files until its share is used, then a fresh one takes over; a file may ask for one of
 * its own; an instance nobody holds any more after its retirement is stopped.
 */
let pool: DynamoDbPool | undefined;

afterAll(async () => {
  await pool?.stop();
});

const call = async (path: string, body: unknown): Promise<{ endpoint?: string }> => {
  const response = await fetch(`${pool!.url}${path}`, { method: 'POST', body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return (await response.json()) as { endpoint?: string };
};
const lease = async (fresh = false) => (await call('/lease', { fresh })).endpoint!;
const release = (endpoint: string, used = true) => call('/release', { endpoint, used });
const answers = async (endpoint: string): Promise<boolean> => {
  const client = new DynamoDBClient({ endpoint, region: 'eu-west-2', credentials: { accessKeyId: 'l', secretAccessKey: 'l' }, maxAttempts: 1 });
  try {
    await client.send(new ListTablesCommand({}));
    return true;
  } catch {
    return false;
  } finally {
    client.destroy();
  }
};

describe('the DynamoDB Local pool of a test run', () => {
  it('hands one instance to files until two used it, then a fresh one; one of its own on request; stops what it retired', async () => {
    pool = await startDynamoDbPool({ filesPerInstance: 2, itemsPerInstance: 1_000 });
    const first = await lease();
    await release(first);
    expect(await lease()).toBe(first);
    // A file that did not use it does not count.
    await release(first, false);
    expect(await lease()).toBe(first);
    await release(first);
    const second = await lease();
    expect(second).not.toBe(first);
    await eventually(async () => expect(await answers(first)).toBe(false));

    const own = await lease(true);
    expect([first, second]).not.toContain(own);
    expect(await lease()).toBe(second);
    await release(own);
    await eventually(async () => expect(await answers(own)).toBe(false));
    expect(await answers(second)).toBe(true);
  }, 60_000);
});
