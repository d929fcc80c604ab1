import { defineFunction } from '../shared/config/define-function';
import { listConsumerDeps, maintainSimListsConsumer } from '../shared/sim-lists/stream-consumer';

/**
 * Consumer of the table's DynamoDB stream (issue #19): keeps the SIM list index that A1 reads
 * exact for every SIM change, whoever wrote it (shared/sim-lists/stream-consumer.ts).
 */
export const handler = defineFunction('maintain-sim-lists', { deps: listConsumerDeps, handler: maintainSimListsConsumer });
