import { defineFunction } from '../shared/config/define-function';
import { publishDeps, publishLifecycleEvents } from '../shared/routes/publish-lifecycle-events';

/**
 * Consumer of the table's DynamoDB stream (issue #15, point 3): SIM and credential changes
 * become lifecycle events, one delivery job per (event, subscription) (shared/routes/publish-lifecycle-events.ts).
 */
export const handler = defineFunction('publish-lifecycle-events', { deps: publishDeps, handler: publishLifecycleEvents });
