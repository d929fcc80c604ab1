import { defineFunction } from '../shared/config/define-function';
import { applyOperatorFeedConsumer, feedConsumerDeps } from '../shared/feed/consumer';

/** Consumer of the operator-feed queue: SIMs, their status and usage, customers and bundles from the operator's systems (shared/feed/consumer.ts). */
export const handler = defineFunction('apply-operator-feed', { deps: feedConsumerDeps, handler: applyOperatorFeedConsumer });
