import { defineFunction } from '../shared/config/define-function';
import { applyOperatorFeedConsumer, feedConsumerDeps } from '../shared/routes/apply-operator-feed';

/** Consumer of the operator-feed queue: SIMs, their status and usage, customers and bundles from the operator's systems (shared/routes/apply-operator-feed.ts). */
export const handler = defineFunction('apply-operator-feed', { deps: feedConsumerDeps, handler: applyOperatorFeedConsumer });
