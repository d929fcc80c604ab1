import type { FunctionConfig } from '../config/function-config';
import { getSecret } from '../config/secrets';
import { header } from '../http/headers';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { sqsFulfilmentQueue } from '../fulfilment/queue';
import { receiveStripeEvent, type WebhookDeps } from '../fulfilment/webhook';

/** The deps of the stripe-webhook function, from its configuration (read once at init). */
export const webhookDeps = (config: FunctionConfig<'stripe-webhook'>): WebhookDeps => {
  const queue = sqsFulfilmentQueue(config, config.fulfilmentQueueUrl);
  return {
    webhookSecret: () => getSecret('STRIPE_WEBHOOK_SECRET'),
    queue: () => queue,
  };
};

/**
 * POST /api/v1/webhooks/stripe — payment events from Stripe (docs/fulfilment.md). No service
 * token: Stripe signs the raw body, which is verified before anything is parsed (400
 * `invalid_signature`); payment events go to the fulfilment queue, and nothing else (no
 * table, so no DynamoDB client in the bundle); the answer is `{"received": true}`.
 */
export const webhookRoute = (deps: WebhookDeps) =>
  httpRoute({}, async (event) => {
    const answer = await receiveStripeEvent(deps, {
      rawBody: Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8'),
      signature: header(event, 'Stripe-Signature'),
    });
    return ok(200, answer);
  });
