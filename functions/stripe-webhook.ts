import { readConfig } from '../shared/config/env';
import { getSecret } from '../shared/config/secrets';
import { sqsFulfilmentQueue } from '../shared/fulfilment/queue';
import { receiveStripeEvent } from '../shared/fulfilment/webhook';
import { header } from '../shared/http/headers';
import { ok } from '../shared/http/responses';
import { httpRoute } from '../shared/http/route';

/**
 * POST /api/v1/webhooks/stripe — payment events from Stripe (docs/fulfilment.md). No service
 * token: Stripe signs the raw body, which is verified before anything is parsed (400
 * `invalid_signature`); payment events go to the fulfilment queue, and nothing else (no
 * table, so no DynamoDB client in the bundle); the answer is `{"received": true}`.
 */
export const handler = httpRoute({}, async (event) => {
  const config = readConfig();
  const queueUrl = process.env.FULFILMENT_QUEUE_URL || undefined;
  const answer = await receiveStripeEvent(
    {
      webhookSecret: () => getSecret('STRIPE_WEBHOOK_SECRET'),
      queue: () => (queueUrl ? sqsFulfilmentQueue(config, queueUrl) : undefined),
    },
    {
      rawBody: Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8'),
      signature: header(event, 'Stripe-Signature'),
    },
  );
  return ok(200, answer);
});
