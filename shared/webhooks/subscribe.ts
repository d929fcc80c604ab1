import type { WebhookSubscriptionItem } from '../db/items';
import { ApiError } from '../errors/api-error';
import type { ValidCreateRequest } from './create-request';
import { newSigningSecret, newSubscriptionId, sealSecret } from './secret-box';
import { createSubscription, maxSubscriptionsPerCustomer, SubscriptionLimitReached, type SubscriptionTable } from './subscriptions';

/** A subscription just made, with its signing secret (the only moment the secret exists in clear outside a signer). */
export interface NewSubscriptionWithSecret {
  item: WebhookSubscriptionItem;
  /** The `whsec_` secret: shown once to the API caller, never stored in clear. */
  secret: string;
}

/**
 * Subscribes a customer to lifecycle events with a validated request (./create-request.ts): a
 * new id and `whsec_` secret, the secret sealed under WEBHOOK_SECRETS_KEY (`keyMaterial`), the
 * subscription written and counted (./subscriptions.ts). The one way a subscription is made:
 * POST /developer/api/webhooks/ and the local developer console's "Subscribe the webhook
 * inbox" both call it. Throws 409 `webhook_limit_reached` when the customer has 10 already.
 */
export const subscribeCustomer = async (
  table: SubscriptionTable,
  input: { customerId: string; request: ValidCreateRequest; keyMaterial: string; nowMs: number },
): Promise<NewSubscriptionWithSecret> => {
  const id = newSubscriptionId();
  const secret = newSigningSecret();
  try {
    const item = await createSubscription(table, {
      id,
      customerId: input.customerId,
      ...input.request,
      secretSealed: sealSecret(input.keyMaterial, id, secret),
      nowMs: input.nowMs,
    });
    return { item, secret };
  } catch (error) {
    if (error instanceof SubscriptionLimitReached) {
      throw new ApiError(
        409,
        'webhook_limit_reached',
        `This customer has ${maxSubscriptionsPerCustomer} webhook subscriptions, the most allowed; delete one first.`,
      );
    }
    throw error;
  }
};
