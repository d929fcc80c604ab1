import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startDynamoDbLocal } from './dynamodb-local';
import type { RuntimeCleanups } from './runtime-cleanups';
import type { LocalRuntimeOptions } from './runtime-types';
import { startSqsLocal, type SqsLocal } from './sqs-local';

/** The DynamoDB Local and SQS emulator a runtime uses. */
export interface RuntimeStores {
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  /** The SQS emulator this call started (undefined: the one given was reused). */
  sqsLocal?: SqsLocal;
}

/**
 * Starts DynamoDB Local and the SQS emulator side by side, or reuses the endpoints given
 * (the tests). With persistDir DynamoDB Local keeps its data in that folder and the SQS
 * emulator its queues in DIR/sqs (SQLite), so what was queued or in flight survives a kill.
 */
export const startOrReuseStores = async (
  options: Pick<LocalRuntimeOptions, 'dynamodbEndpoint' | 'sqsEndpoint' | 'persistDir'>,
  cleanups: RuntimeCleanups,
): Promise<RuntimeStores> => {
  const startDynamo = async (): Promise<string> => {
    if (options.dynamodbEndpoint) return options.dynamodbEndpoint;
    if (options.persistDir) mkdirSync(options.persistDir, { recursive: true });
    const dynamodb = await startDynamoDbLocal({ persistDir: options.persistDir });
    cleanups.add(() => dynamodb.stop());
    return dynamodb.endpoint;
  };
  let sqsLocal: SqsLocal | undefined;
  const startSqs = async (): Promise<string> => {
    if (options.sqsEndpoint) return options.sqsEndpoint;
    const sqs = await startSqsLocal({ dataDir: options.persistDir ? join(options.persistDir, 'sqs') : undefined });
    sqsLocal = sqs;
    cleanups.add(() => sqs.stop());
    return sqs.endpoint;
  };
  const [dynamodbEndpoint, sqsEndpoint] = await Promise.all([startDynamo(), startSqs()]);
  return { dynamodbEndpoint, sqsEndpoint, sqsLocal };
};
