import type { StreamConsumerDefinition } from '../../../shared/topology/streams';

/** A stream consumer of SIM items for the stream reader's tests: batches of 10, one retry; the tests pass its handler. */
export const probeConsumer: StreamConsumerDefinition = {
  name: 'probe',
  handler: 'unused.ts',
  timeoutSeconds: 5,
  batchSize: 10,
  retryAttempts: 1,
  failureQueueUrlVariable: 'PROBE_FAILURE_QUEUE_URL',
  itemTypes: ['sim'],
  access: { table: 'read' },
};
