import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { FunctionConfig } from '../config/function-config';
import { documentClient } from '../db/client';
import { logKeys, withInvocation } from '../observability/invocation';
import { logger } from '../observability/logger';
import { recordMetric } from '../observability/metrics';
import { maintainSimLists } from '../sim-lists/maintain';
import { simChangeOf } from '../sim-lists/sim-change';

/** What the list index consumer needs: the table. */
export interface ListConsumerDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/** The deps of the maintain-sim-lists function, from its configuration (read once at init). */
export const listConsumerDeps = (config: FunctionConfig<'maintain-sim-lists'>): ListConsumerDeps => ({
  db: documentClient(config),
  tableName: config.tableName,
});

/**
 * Consumer of the table's stream (issue #19): keeps the SIM list index exact
 * (shared/sim-lists/maintain.ts) for every SIM put, changed or removed, whoever wrote it. The
 * whole batch is one unit: every step is safe to run again, so when anything fails the batch is
 * reported as failed from its first record and read again (ReportBatchItemFailures), never
 * skipping a change.
 */
export const maintainSimListsConsumer =
  (deps: ListConsumerDeps) =>
  (event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> =>
    withInvocation(context, { consumer: 'maintain-sim-lists' }, async () => {
      if (logKeys().cold_start === true) recordMetric('ColdStart', { function_name: context.functionName });
      const changes = event.Records.map(simChangeOf).filter((change) => change.old || change.new);
      if (changes.length === 0) return { batchItemFailures: [] };
      try {
        const started = Date.now();
        const result = await maintainSimLists(deps, changes);
        logger.info('sim lists maintained', { records: changes.length, ...result, duration_ms: Date.now() - started });
        return { batchItemFailures: [] };
      } catch (error) {
        logger.error('sim list maintenance failed', { records: changes.length, error: error instanceof Error ? error : String(error) });
        return { batchItemFailures: [{ itemIdentifier: event.Records[0]?.dynamodb?.SequenceNumber ?? '' }] };
      }
    });
