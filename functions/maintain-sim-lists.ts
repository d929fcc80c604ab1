import { defineFunction } from '../shared/config/define-function';
import { listConsumerDeps, maintainSimListsConsumer } from '../shared/routes/maintain-sim-lists';

/**
 * Consumer of the table's DynamoDB stream (issue #19): keeps the SIM list index that A1 reads
 * exact for every SIM change, whoever wrote it (shared/routes/maintain-sim-lists.ts).
 */
export const handler = defineFunction('maintain-sim-lists', { deps: listConsumerDeps, handler: maintainSimListsConsumer });
