import { readFileSync } from 'node:fs';
import { afterAll, expect, inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's DynamoDB Local pool (./dynamodb-pool.ts). */
    dynamodbPool: string;
  }
}

interface Lease {
  endpoint: string;
  used: boolean;
}

// On globalThis: this setup file and the modules of the test file may be separate instances.
const leaseKey = Symbol.for('sim-service.dynamodb-lease');
const state = globalThis as typeof globalThis & { [leaseKey]?: Lease };

const post = async (path: string, body?: unknown): Promise<unknown> => {
  const response = await fetch(`${inject('dynamodbPool')}${path}`, { method: 'POST', body: JSON.stringify(body ?? {}) });
  if (!response.ok) throw new Error(`the DynamoDB Local pool answered ${response.status} to ${path}: ${await response.text()}`);
  return response.json();
};

/**
 * The DynamoDB Local endpoint of this test file: the instance the run's pool lent it
 * (./dynamodb-pool.ts). Every test reaches DynamoDB Local through this.
 */
export const dynamodbEndpoint = (): string => {
  const lease = state[leaseKey];
  if (!lease) throw new Error('no DynamoDB Local leased: test/support/dynamodb-lease.ts is a setup file of every project');
  lease.used = true;
  return lease.endpoint;
};

/**
 * A test file whose source holds this marker (in a comment) gets a DynamoDB Local of its own,
 * unused before (./dynamodb-pool.ts): for files that write thousands of items.
 */
export const ownDynamoDbMarker = '@dynamodb-local-of-its-own';

const testFile = expect.getState().testPath;
const fresh = testFile !== undefined && readFileSync(testFile, 'utf8').includes(ownDynamoDbMarker);

// vitest setup of every project: lease an instance before the file runs, give it back after
// its own afterAll hooks (after-hooks run in reverse order of registration; this one is first).
state[leaseKey] = { endpoint: ((await post('/lease', { fresh })) as { endpoint: string }).endpoint, used: false };
afterAll(async () => {
  const lease = state[leaseKey];
  delete state[leaseKey];
  if (lease) await post('/release', lease);
});
