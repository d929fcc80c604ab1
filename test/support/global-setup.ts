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
 * projects), provides their endpoints to `project`'s test files, and returns the teardown,
 * which stops them after the last project is done.
 */
export const shareServers = async (project: TestProject): Promise<() => Promise<void>> => {
  const shared = (registry[sharedKey] ??= { started: Promise.all([startDynamoDbLocal(), startSqsLocal()]), users: 0 });
  shared.users += 1;
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    shared.users -= 1;
    if (shared.users > 0) return;
    delete registry[sharedKey];
    const [dynamodb, sqs] = await shared.started;
    await Promise.all([dynamodb.stop(), sqs.stop()]);
  };
  try {
    const [dynamodb, sqs] = await shared.started;
    project.provide('dynamodbEndpoint', dynamodb.endpoint);
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
