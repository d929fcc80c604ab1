import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { logger } from '../shared/observability/logger';
import { recoverStoppedWorkers, type RedriveResult } from './redrive';
import type { LocalRuntimeOptions } from './runtime-types';
import type { SqsLocal } from './sqs-local';

/** What redrivePersistedRuntime looks at. */
export interface PersistedRuntimeState {
  options: Pick<LocalRuntimeOptions, 'persistDir' | 'dynamodbEndpoint' | 'quiet'>;
  /** The SQS emulator this runtime started (undefined: one given was reused). */
  sqsLocal?: SqsLocal;
  /** Whether the table was created by this start (then nothing was left behind). */
  created: boolean;
  dynamo: DynamoDBClient;
  tableName: string;
}

/**
 * A killed runtime's workers: their leases and in-flight messages are given back on the
 * persisted table and queues before any poller runs (local/redrive.ts). Only when this
 * runtime owns them: persistDir, its own DynamoDB Local and SQS emulator, an existing table.
 */
export const redrivePersistedRuntime = async (state: PersistedRuntimeState): Promise<RedriveResult | undefined> => {
  const { options, sqsLocal } = state;
  const ownsPersistedState = options.persistDir !== undefined && options.dynamodbEndpoint === undefined && sqsLocal !== undefined && !state.created;
  const redriven = ownsPersistedState
    ? await recoverStoppedWorkers({
        dynamo: state.dynamo,
        tableName: state.tableName,
        inFlightReleased: sqsLocal!.inFlightReleased,
      })
    : undefined;
  if (redriven && !options.quiet) {
    logger.info('work of a stopped runtime given back', { component: 'local-runtime', ...redriven });
  }
  return redriven;
};
