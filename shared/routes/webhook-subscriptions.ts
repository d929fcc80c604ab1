import type { APIGatewayProxyEvent } from 'aws-lambda';
import { parseAllowedHosts } from '../callbacks/allowed-hosts';
import { localRefusalHint } from '../callbacks/callback-url';
import type { HostResolver } from '../callbacks/resolve-host';
import type { FunctionConfig } from '../config/function-config';
import { getSecret } from '../config/secrets';
import type { WebhookSubscriptionItem } from '../db/items';
import { ApiError } from '../errors/api-error';
import { developerDeps, developerRoute, type DeveloperDeps } from '../http/developer-route';
import { ok } from '../http/responses';
import { validateCreateRequest } from '../webhooks/create-request';
import { deliveryView, listDeliveries } from '../webhooks/deliveries';
import { isSubscriptionId, newSigningSecret, sealSecret } from '../webhooks/secret-box';
import { subscribeCustomer } from '../webhooks/subscribe';
import { deleteSubscription, listSubscriptions, readSubscription, rotateSubscriptionSecret, subscriptionView } from '../webhooks/subscriptions';

/** What the webhook subscription routes need beyond every Area A route's deps. */
export interface WebhookRouteDeps extends DeveloperDeps {
  /** Hosts exempt from the public-address rule of `url` (CALLBACK_ALLOWED_HOSTS). */
  allowedCallbackHosts: string[];
  /** Said after a refusal of a non-public `url` (locally: the inbox and CALLBACK_ALLOWED_HOSTS). */
  callbackRefusalHint?: string;
  /** The WEBHOOK_SECRETS_KEY secret that seals signing secrets (read per request: secrets are cached, not configuration). */
  secretsKey: () => Promise<string | undefined>;
  /** Host name resolution of `url` (default: the system resolver). */
  resolve?: HostResolver;
}

/** The deps of the webhook routes, from their configuration (read once at init). */
export const webhookRouteDeps = (config: FunctionConfig<'create-webhook'>): WebhookRouteDeps => ({
  ...developerDeps(config),
  allowedCallbackHosts: parseAllowedHosts(config.allowedCallbackHosts),
  callbackRefusalHint: localRefusalHint(config.localWebhookInboxUrl),
  secretsKey: () => getSecret('WEBHOOK_SECRETS_KEY'),
});

/** 404 of a subscription that does not exist or belongs to another customer: one body for both. */
export const webhookNotFound = (): ApiError => new ApiError(404, 'webhook_not_found', 'No webhook subscription with this id.');

const keyMaterial = async (deps: WebhookRouteDeps): Promise<string> => {
  const value = await deps.secretsKey();
  if (!value) throw new Error('WEBHOOK_SECRETS_KEY is not configured (nor WEBHOOK_SECRETS_KEY_SECRET_ARN)');
  return value;
};

const subscriptionIdOf = (event: APIGatewayProxyEvent): string => {
  const id = event.pathParameters?.webhook;
  if (!isSubscriptionId(id)) throw webhookNotFound();
  return id;
};

/** The key's customer's subscription named by the path, read beside the rate-limit write (developerRoute's prepare). */
const readNamedSubscription = async (
  { event, caller }: { event: APIGatewayProxyEvent; caller: { customerId: string } },
  deps: WebhookRouteDeps,
): Promise<WebhookSubscriptionItem> => {
  const found = await readSubscription(deps, caller.customerId, subscriptionIdOf(event), true);
  if (!found) throw webhookNotFound();
  return found;
};

/**
 * POST /developer/api/webhooks/: subscribes the key's customer to lifecycle events. 201 with
 * the subscription and its `whsec_` secret, shown only here; at most 10 per customer (409
 * `webhook_limit_reached`).
 */
export const createWebhookRoute = (deps: WebhookRouteDeps) =>
  developerRoute<undefined, WebhookRouteDeps>({ deps, json: true }, async ({ event, caller }, resolved) => {
    const request = await validateCreateRequest(event.body, { allowedHosts: resolved.allowedCallbackHosts, resolve: resolved.resolve, refusalHint: resolved.callbackRefusalHint });
    const { item, secret } = await subscribeCustomer(resolved, {
      customerId: caller.customerId,
      request,
      keyMaterial: await keyMaterial(resolved),
      nowMs: resolved.now(),
    });
    return ok(201, { ...subscriptionView(item), secret });
  });

/** GET /developer/api/webhooks/: the key's customer's subscriptions (never their secrets), oldest first. */
export const listWebhooksRoute = (deps: WebhookRouteDeps) =>
  developerRoute<WebhookSubscriptionItem[], WebhookRouteDeps>(
    { deps, prepare: ({ caller }, resolved) => listSubscriptions(resolved, caller.customerId) },
    async ({ prepared }) => {
      const items = await prepared();
      return ok(200, { count: items.length, results: items.map(subscriptionView) });
    },
  );

/** GET /developer/api/webhooks/<id>/: one subscription of the key's customer (404 `webhook_not_found` otherwise). */
export const getWebhookRoute = (deps: WebhookRouteDeps) =>
  developerRoute<WebhookSubscriptionItem, WebhookRouteDeps>({ deps, prepare: readNamedSubscription }, async ({ prepared }) =>
    ok(200, subscriptionView(await prepared())),
  );

/** DELETE /developer/api/webhooks/<id>/: 200 with the deleted subscription; nothing is delivered to it afterwards. */
export const deleteWebhookRoute = (deps: WebhookRouteDeps) =>
  developerRoute<WebhookSubscriptionItem, WebhookRouteDeps>({ deps, prepare: readNamedSubscription }, async ({ prepared }, resolved) => {
    const item = await prepared();
    if (!(await deleteSubscription(resolved, item.customer_id, item.id))) throw webhookNotFound();
    return ok(200, subscriptionView(item));
  });

/**
 * POST /developer/api/webhooks/<id>/rotate-secret/: a new secret, shown only in this answer;
 * the previous one keeps signing beside it for 24 hours (two `v1,` signatures).
 */
export const rotateWebhookSecretRoute = (deps: WebhookRouteDeps) =>
  developerRoute<WebhookSubscriptionItem, WebhookRouteDeps>({ deps, prepare: readNamedSubscription }, async ({ prepared }, resolved) => {
    const item = await prepared();
    const secret = newSigningSecret();
    const rotated = await rotateSubscriptionSecret(resolved, item, sealSecret(await keyMaterial(resolved), item.id, secret), resolved.now());
    if (!rotated) throw webhookNotFound();
    return ok(200, { ...subscriptionView(rotated), secret });
  });

/** GET /developer/api/webhooks/<id>/deliveries/: the 100 most recent delivery attempts, newest first. */
export const listWebhookDeliveriesRoute = (deps: WebhookRouteDeps) =>
  developerRoute<WebhookSubscriptionItem, WebhookRouteDeps>({ deps, prepare: readNamedSubscription }, async ({ prepared }, resolved) => {
    const item = await prepared();
    const attempts = await listDeliveries(resolved, item.customer_id, item.id);
    return ok(200, { results: attempts.map(deliveryView) });
  });
