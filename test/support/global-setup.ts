import type { TestProject } from 'vitest/node';
import { startSqsLocal, type SqsLocal } from '../../local/sqs-local';
import { startDynamoDbPool, type DynamoDbPool } from './dynamodb-pool';

declare module 'vitest' {
  export interface ProvidedContext {
    sqsEndpoint: string;
  }
}

/**
 * How much one DynamoDB Local serves before a fresh one replaces it (./dynamodb-pool.ts says
 * why): test files that used it, or items in its tables.
 */
const dynamoDbLocalShare = { filesPerInstance: 8, itemsPerInstance: 4_000 };

interface SharedServers {
  started: Promise<[DynamoDbPool, SqsLocal]>;
  users: number;
}

// Each vitest project (source, bundled: vitest.config.ts) runs this setup; the projects of one
// run share the servers through globalThis (each project loads its own copy of this module).
const sharedKey = Symbol.for('sim-service.test-servers');
const registry = globalThis as typeof globalThis & { [sharedKey]?: SharedServers };

/**
 * Starts the DynamoDB Local pool and the SQS emulator once for the whole test run (shared by
 * its projects), provides them to `project`'s test files (each leases a DynamoDB Local:
 * ./dynamodb-lease.ts), and returns the teardown, which stops them after the last project is done.
 */
export const shareServers = async (project: TestProject): Promise<() => Promise<void>> => {
  const shared = (registry[sharedKey] ??= { started: Promise.all([startDynamoDbPool(dynamoDbLocalShare), startSqsLocal()]), users: 0 });
  shared.users += 1;
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    shared.users -= 1;
    if (shared.users > 0) return;
    delete registry[sharedKey];
    const [pool, sqs] = await shared.started;
    await Promise.all([pool.stop(), sqs.stop()]);
  };
  try {
    const [pool, sqs] = await shared.started;
    project.provide('dynamodbPool', pool.url);
    project.provide('sqsEndpoint', sqs.endpoint);
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
  return release;
};

/** Global setup of the source project: the shared servers. */
export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return shareServers(project);
}
