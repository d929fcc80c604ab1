/**
 * Hostile names in every place of every route (issue #31, point 1: names are data, never
 * properties). A name such as `constructor`, `__proto__` or `toString` is what a lookup
 * `table[name]` on a plain object finds without the table holding it; an id with `#` is what a
 * key built by concatenation confuses with another; 3,000 characters are more than a DynamoDB
 * key may hold. Each request here is a plausible request of one route (good credentials, a
 * body that passes validation, a right signature) with one such name put in one place: a path
 * parameter, a query parameter's name or value, a header's name or value, or a key or value of
 * the JSON body (top level and nested). The property test (test/fuzz/fuzz.test.ts) sends them
 * all and draws more with fast-check; the fuzz campaign mixes them in (routes.ts).
 */
import { stripeApiVersion } from '../../shared/adapters/stripe/api-version';
import { key } from '../../shared/db/keys';
import { allRoutes, type RouteDefinition } from '../../shared/topology/routes';
import type { FuzzContext } from './context';
import type { FuzzRequest } from './fuzz-request';
import type { HeaderLines } from './headers';
import { jsonText, node, type JsonNode } from './json-text';
import { providerSignature, stripeSignature } from './signing';

/**
 * The names: Object.prototype's own names and `prototype`, ids carrying the key separator
 * `#` (one of them a SIM's partition key, as shared/db/keys.ts builds it), and a 3,000-character value.
 */
export const hostileNames: readonly string[] = [
  'constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty', 'valueOf',
  'acme#1', key.sim(1001).PK, '#', 'constructor#0', 'a'.repeat(3_000),
];

/** Where in a request a name goes. `at` is the path to an object (body-key) or a field (body-value) of the body. */
export type NamePlace =
  | { kind: 'path'; parameter: string }
  | { kind: 'query-name' }
  | { kind: 'query-value'; parameter: string }
  | { kind: 'header-name' }
  | { kind: 'header-value'; header: string }
  | { kind: 'body-key'; at: string[] }
  | { kind: 'body-value'; at: string[] };

/** One place of one route. */
export interface NameCase {
  route: RouteDefinition;
  place: NamePlace;
}

/** What the name requests know beyond the fuzz context: a subscription and a message of the caller's customer, when made. */
export interface NamesContext extends FuzzContext {
  /** A webhook subscription of the API key's customer (get, rotate, deliveries); else a well-formed unknown id. */
  webhookId?: string;
  /** A message_id the key's customer sent (get-sms, receipts); else an unknown one. */
  messageId?: string;
}

/** A well-formed subscription id no subscription has (delete-webhook never deletes the real one). */
const unknownWebhookId = `wh_${'0'.repeat(24)}`;

/** A plausible request of a route, before a name is put in. */
interface Plausible {
  method: string;
  pathParameters: Record<string, string>;
  /** The query parameters the route reads (the names a query value goes to). */
  queryParameters: string[];
  /** Headers whose value the route reads. */
  headers: HeaderLines;
  body?: unknown;
  signature?: 'provider' | 'stripe';
}

const address = (withName: boolean) => ({
  ...(withName ? { name: 'Names Buyer' } : {}),
  line1: '1 Test Street',
  city: 'London',
  postal_code: 'SW1A 1AA',
  country: 'GB',
});

/** The plausible request of `route` for the `serial`-th request (message ids and idempotency keys differ per request). */
const plausibleOf = (route: RouteDefinition, context: NamesContext, serial: number, nowSeconds: number): Plausible => {
  const developer: HeaderLines = [
    ['Authorization', `Bearer ${context.developerTokens[serial % context.developerTokens.length]}`],
    ['X-Customer-API-Key', context.apiKey],
  ];
  const storefront: HeaderLines = [['Authorization', `Bearer ${context.storefrontToken}`], ['Idempotency-Key', `names-${serial}-${nowSeconds}`]];
  const iccid = context.iccids[0]!;
  const messageId = context.messageId ?? 'names-unknown-message';
  const get = (pathParameters: Record<string, string> = {}, queryParameters: string[] = []): Plausible => ({ method: 'GET', pathParameters, queryParameters, headers: developer });
  switch (route.name) {
    case 'list-sims':
      return get({}, ['page', 'page_size', 'status', 'customer', 'updated_after']);
    case 'get-sim':
      return get({ sim: String(context.simIds[0]) });
    case 'send-sms':
      return { ...get({ sim: iccid }), method: 'POST', body: { message: 'Hello from the names test', message_id: `names-${serial}-${nowSeconds}` } };
    case 'get-sms':
      return get({ sim: iccid, message_id: messageId });
    case 'receive-sms-receipt':
      return {
        method: 'POST',
        pathParameters: {},
        queryParameters: [],
        headers: [],
        body: { reference: messageId, provider_message_id: `pm_names_${serial}`, status: 'delivered', occurred_at: new Date(nowSeconds * 1000).toISOString() },
        signature: 'provider',
      };
    case 'checkout-esim':
      return {
        method: 'POST', pathParameters: {}, queryParameters: [], headers: storefront,
        body: { cart: [{ catalog_sku: context.skus.esim[0], quantity: 1 }], customer_email: `names${serial}@example.com`, customer_country: 'GB' },
      };
    case 'checkout-physical':
      return {
        method: 'POST', pathParameters: {}, queryParameters: [], headers: storefront,
        body: { cart: [{ catalog_sku: context.skus.physical[0], quantity: 1 }], customer_email: `names${serial}@example.com`, customer_country: 'GB', customer_name: 'Names Buyer', shipping_address: address(true) },
      };
    case 'checkout-iot':
      return {
        method: 'POST', pathParameters: {}, queryParameters: [], headers: storefront,
        body: {
          cart: [{ sku: context.skus.iot[0], quantity: 1 }],
          customer_email: `names${serial}@example.com`,
          customer_country: 'GB',
          customer_first_name: 'Names',
          customer_last_name: 'Buyer',
          data_processing_consent: { agreed: true, wording: 'I agree to the processing of my data.', given_at: '2026-11-20T10:00:00Z' },
          billing_address: address(false),
          shipping_address: address(true),
        },
      };
    case 'stripe-webhook':
      return {
        method: 'POST', pathParameters: {}, queryParameters: [], headers: [['User-Agent', 'Stripe/1.0 (+https://stripe.com/docs/webhooks)']],
        body: {
          id: `evt_names${serial}`, object: 'event', api_version: stripeApiVersion, created: nowSeconds, type: 'payment_intent.succeeded', livemode: false,
          data: { object: { id: `pi_names${serial}`, object: 'payment_intent', amount: 1440, amount_received: 1440, currency: 'gbp', status: 'succeeded', metadata: { order_id: '00000000-0000-4000-8000-000000000000' } } },
        },
        signature: 'stripe',
      };
    case 'request-sim-action':
      return {
        ...get({ sim: String(context.simIds[0]) }),
        method: 'POST',
        headers: [...developer, ['Idempotency-Key', `names-${serial}-${nowSeconds}`]],
        body: { action: 'suspend', reason: 'names test [silent]' },
      };
    case 'list-sim-actions':
      return get({ sim: String(context.simIds[0]) }, ['page', 'page_size']);
    case 'get-sim-action':
      return get({ sim: iccid, action_id: `act_${'0'.repeat(28)}` });
    case 'create-webhook':
      return { ...get(), method: 'POST', body: { url: 'https://1.1.1.1/hook', events: ['line.activated'], description: 'names test' } };
    case 'list-webhooks':
      return get();
    case 'get-webhook':
    case 'list-webhook-deliveries':
      return get({ webhook: context.webhookId ?? unknownWebhookId });
    case 'rotate-webhook-secret':
      return { ...get({ webhook: context.webhookId ?? unknownWebhookId }), method: 'POST' };
    case 'delete-webhook':
      return { ...get({ webhook: unknownWebhookId }), method: 'DELETE' };
    case 'developer-fallback':
      return get({ proxy: 'names' });
    case 'default-fallback':
      return { method: 'GET', pathParameters: { proxy: 'names' }, queryParameters: [], headers: [] };
    default:
      throw new Error(`no plausible request for route ${route.name}: add it to scripts/fuzz/names.ts`);
  }
};

/** Paths (from the top) to every object (`objects`) and every field (`fields`) of a body. */
const bodyPaths = (value: unknown, at: string[] = [], found = { objects: [] as string[][], fields: [] as string[][] }) => {
  if (Array.isArray(value)) value.forEach((item, index) => bodyPaths(item, [...at, String(index)], found));
  else if (typeof value === 'object' && value !== null) {
    found.objects.push(at);
    for (const [name, item] of Object.entries(value)) {
      found.fields.push([...at, name]);
      bodyPaths(item, [...at, name], found);
    }
  }
  return found;
};

/** Every place of every route (the fallbacks included) a name can go. */
export const nameCases = (context: NamesContext): NameCase[] =>
  allRoutes().flatMap((route) => {
    const plausible = plausibleOf(route, context, 0, 0);
    const places: NamePlace[] = [
      ...Object.keys(plausible.pathParameters).map((parameter): NamePlace => ({ kind: 'path', parameter })),
      { kind: 'query-name' },
      ...(plausible.queryParameters.length > 0 ? plausible.queryParameters : ['q']).map((parameter): NamePlace => ({ kind: 'query-value', parameter })),
      { kind: 'header-name' },
      ...plausible.headers.map(([header]): NamePlace => ({ kind: 'header-value', header })),
    ];
    if (plausible.body !== undefined) {
      const { objects, fields } = bodyPaths(plausible.body);
      places.push(...objects.map((at): NamePlace => ({ kind: 'body-key', at })), ...fields.map((at): NamePlace => ({ kind: 'body-value', at })));
    }
    return places.map((place) => ({ route, place }));
  });

/**
 * The sweep of `npm run fuzz -- --names`: request `index` is case `index / names` of
 * nameCases with name `index % names` of hostileNames, so every place of every route gets every
 * name once, in `nameSweepSize` requests, and `--index K` regenerates one.
 */
export const nameSweepRequest = (context: NamesContext, cases: readonly NameCase[], index: number, nowMs: number): FuzzRequest =>
  nameRequest(context, cases[Math.floor(index / hostileNames.length) % cases.length]!, hostileNames[index % hostileNames.length]!, index, Math.floor(nowMs / 1000));

/** Requests in the whole sweep: every case with every name. */
export const nameSweepSize = (cases: readonly NameCase[]): number => cases.length * hostileNames.length;

/** A short text of a place, for labels: `path {sim}`, `body key at shipping_address`, `query value customer`. */
export const placeText = (place: NamePlace): string => {
  switch (place.kind) {
    case 'path':
      return `path {${place.parameter}}`;
    case 'query-value':
      return `query value ${place.parameter}`;
    case 'header-value':
      return `header value ${place.header}`;
    case 'body-key':
      return `body key at ${place.at.join('.') || 'top'}`;
    case 'body-value':
      return `body value ${place.at.join('.')}`;
    default:
      return place.kind.replace('-', ' ');
  }
};

/** A short text of a name for labels (the long one by its length). */
const nameText = (name: string): string => (name.length > 40 ? `${name.length} characters` : JSON.stringify(name));

/** The node at `at` of a body tree, made with node() (so objects are entry lists). */
const nodeAt = (tree: JsonNode, at: string[]): JsonNode => {
  let current = tree;
  for (const step of at) {
    if (current.kind === 'object') current = current.entries.find(([name]) => name === step)![1];
    else if (current.kind === 'array') current = current.items[Number(step)]!;
  }
  return current;
};

const setAt = (tree: JsonNode, at: string[], value: JsonNode): void => {
  const parent = nodeAt(tree, at.slice(0, -1));
  const last = at.at(-1)!;
  if (parent.kind === 'object') parent.entries = parent.entries.map(([name, entry]) => [name, name === last ? value : entry]);
  else if (parent.kind === 'array') parent.items[Number(last)] = value;
};

/** The route's path with its parameters filled in, each percent-encoded as one segment. */
const pathOf = (route: RouteDefinition, parameters: Record<string, string>): string =>
  route.path.replace(/\{([^}+]+)\+?\}/g, (_, name: string) => encodeURIComponent(parameters[name] ?? 'x'));

/**
 * The request of `nameCase` with `name` in its place: the route's plausible request (its
 * `serial`-th: message ids and idempotency keys differ) with the name put in, signed when the
 * route checks a signature.
 */
export const nameRequest = (context: NamesContext, nameCase: NameCase, name: string, serial: number, nowSeconds = Math.floor(Date.now() / 1000)): FuzzRequest => {
  const { route, place } = nameCase;
  const plausible = plausibleOf(route, context, serial, nowSeconds);
  const pathParameters = { ...plausible.pathParameters };
  const query: Array<[string, string]> = [];
  let headers: HeaderLines = [...plausible.headers];
  const tree = plausible.body === undefined ? undefined : node(plausible.body);
  switch (place.kind) {
    case 'path':
      pathParameters[place.parameter] = name;
      break;
    case 'query-name':
      query.push([name, '1']);
      break;
    case 'query-value':
      query.push([place.parameter, name]);
      break;
    case 'header-name':
      headers.push([name, '1']);
      break;
    case 'header-value':
      headers = headers.map(([header, value]) => [header, header === place.header ? (header === 'Authorization' ? `Bearer ${name}` : name) : value]);
      break;
    case 'body-key': {
      const target = nodeAt(tree!, place.at);
      if (target.kind === 'object') target.entries.push([name, node({ isAdmin: true, customer_id: 'globex' })]);
      break;
    }
    case 'body-value':
      setAt(tree!, place.at, node(name));
      break;
  }
  const body = tree === undefined ? undefined : Buffer.from(jsonText(tree), 'utf8');
  if (body) {
    headers.push(['Content-Type', 'application/json']);
    if (plausible.signature === 'provider') headers.unshift(['X-Provider-Signature', providerSignature(body, context.smsReceiptSecret)]);
    if (plausible.signature === 'stripe') headers.unshift(['Stripe-Signature', stripeSignature(body, context.stripeWebhookSecret, nowSeconds)]);
  }
  const queryText = query.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&');
  const label = `${route.name.endsWith('fallback') ? 'fallback' : route.name}: name ${nameText(name)} in ${placeText(place)}`;
  return {
    index: serial,
    label,
    method: plausible.method,
    target: `${pathOf(route, pathParameters)}${queryText ? `?${queryText}` : ''}`,
    headers,
    ...(body ? { body } : {}),
    ...(plausible.signature === 'stripe' ? { timeBound: true } : {}),
  };
};
