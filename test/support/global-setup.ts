import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';
import { startSqsLocal, type SqsLocal } from '../../local/sqs-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    sqsEndpoint: string;
  }
}

interface SharedServers {
  started: Promise<[DynamoDbLocal, SqsLocal]>;
  users: number;
}

// Each vitest project (source, bundled: vitest.config.ts) runs this setup; the projects of one
// run share the servers through globalThis (each project loads its own copy of this module).
const sharedKey = Symbol.for('sim-service.test-servers');
const registry = globalThis as typeof globalThis & { [sharedKey]?: SharedServers };

/**
 * Starts DynamoDB Local and the SQS emulator once for the whole test run (shared by its
 * projects) and stops them after the last project is done.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const shared = (registry[sharedKey] ??= { started: Promise.all([startDynamoDbLocal(), startSqsLocal()]), users: 0 });
  shared.users += 1;
  const [dynamodb, sqs] = await shared.started;
  project.provide('dynamodbEndpoint', dynamodb.endpoint);
  project.provide('sqsEndpoint', sqs.endpoint);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete registry[sharedKey];
    await Promise.all([dynamodb.stop(), sqs.stop()]);
  };
}
