import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';
import { startSqsLocal, type SqsLocal } from '../../local/sqs-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    sqsEndpoint: string;
  }
}

let dynamodb: DynamoDbLocal | undefined;
let sqs: SqsLocal | undefined;

/** Starts DynamoDB Local and the SQS emulator once for the whole test run. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  [dynamodb, sqs] = await Promise.all([startDynamoDbLocal(), startSqsLocal()]);
  project.provide('dynamodbEndpoint', dynamodb.endpoint);
  project.provide('sqsEndpoint', sqs.endpoint);
  return async () => {
    await Promise.all([dynamodb?.stop(), sqs?.stop()]);
  };
}
