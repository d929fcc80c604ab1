/**
 * One generator per route of both areas (shared/topology/routes.ts), plus the fallbacks: each builds a
 * request that is plausible enough to reach the route's handler with good credentials, with
 * odd methods, path segments, queries, headers and bodies mixed in.
 */
import { stripeApiVersion } from '../../shared/adapters/stripe/api-version';
import type { FuzzContext } from './context';
import type { FuzzRequest } from './fuzz-request';
import { contentType, developerAuth, extraHeaders, headerSafe, storefrontAuth, type HeaderLines } from './headers';
import { fuzzBody } from './bodies';
import { oddString } from './odd-values';
import type { Rng } from './prng';
import { providerSignature, stripeSignature } from './signing';
import { queryString, segment, urlText } from './url-pieces';

/** What a route generator gets: the stream, the context, the run's identity and the clock. */
export interface RouteInput {
  rng: Rng;
  context: FuzzContext;
  runSeed: number;
  index: number;
  /** Unix seconds at generation (Stripe signatures only). */
  nowSeconds: number;
}

/** A request without its index. */
export type RouteRequest = Omit<FuzzRequest, 'index'>;

const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE'];

/** The route's method (mostly) or another one. */
const methodFor = (rng: Rng, own: string): string => (rng.chance(0.85) ? own : rng.pick(methods));

/** The path with its trailing slash (mostly), without it, doubled, or with the case changed. */
const pathVariant = (rng: Rng, path: string): string =>
  rng.weighted<() => string>([
    [12, () => path],
    [3, () => path.replace(/\/$/, '')],
    [1, () => `${path}/`],
    [1, () => path.replace(/^\//, '//')],
    [1, () => path.toUpperCase()],
  ])();

/** The message_id a send of request `index` uses, so that later reads and receipts can name it. */
export const fuzzMessageId = (runSeed: number, index: number) => `fuzz-${runSeed.toString(36)}-${index.toString(36)}`;

const earlierMessageId = ({ rng, runSeed, index }: RouteInput) => fuzzMessageId(runSeed, rng.int(0, Math.max(index - 1, 0)));

const uuid = (rng: Rng): string => {
  const digits = Array.from({ length: 32 }, () => rng.int(0, 15).toString(16));
  digits[12] = '4';
  digits[16] = rng.pick(['8', '9', 'a', 'b']);
  const text = digits.join('');
  return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
};

const withBody = (rng: Rng, headers: HeaderLines, plausible: unknown) => {
  const { bytes, mutated } = fuzzBody(rng, plausible);
  return { headers: [...headers, ...contentType(rng), ...extraHeaders(rng)], body: bytes, mutated };
};

const developerGet = (input: RouteInput, name: string, path: string, query: Record<string, readonly string[]>): RouteRequest => {
  const { rng, context } = input;
  const method = methodFor(rng, 'GET');
  return {
    label: `${name}: ${method === 'GET' ? 'query and headers' : `method ${method}`}`,
    method,
    target: pathVariant(rng, path) + queryString(rng, query),
    headers: [...developerAuth(rng, context), ...extraHeaders(rng)],
    ...(method !== 'GET' && rng.chance(0.5) ? { body: Buffer.from('{"message":"x"}') } : {}),
  };
};

const listSims = (input: RouteInput): RouteRequest =>
  developerGet(input, 'list-sims', '/developer/api/sims/', {
    page: ['1', '2', '0', '-1', '1.5', '1e3', '99999999999999999999', ''],
    page_size: ['1', '25', '100', '101', '0', '-5', 'abc'],
    status: ['active', 'inactive', 'suspended', 'cancelled', 'stock', 'dispatched', 'trial', 'ACTIVE', 'deleted'],
    customer: ['Acme North', 'Acme North Depot', 'Globex', 'acme-north', 'Nobody Ltd'],
    updated_after: ['2026-11-01T00:00:00Z', '2026-11-20T10:00:00+00:00', '2020-01-01T00:00:00Z', '2026-11-20', 'yesterday', '2026-02-30T00:00:00Z'],
  });

const getSim = (input: RouteInput): RouteRequest =>
  developerGet(input, 'get-sim', `/developer/api/sims/${segment(input.rng, input.context.simIds.map(String))}/`, {});

const getSms = (input: RouteInput): RouteRequest => {
  const { rng, context } = input;
  if (rng.chance(0.08)) {
    // A message_id too long for a DynamoDB key under a SIM in scope, nothing else odd.
    return {
      label: 'get-sms: message_id of 2,045+ characters',
      method: 'GET',
      target: `/developer/api/sims/${rng.pick(context.iccids)}/sms/${rng.pick(['m'.repeat(2_045), 'm'.repeat(4_000), '%C3%A9'.repeat(1_030), '%F0%9F%98%80'.repeat(520)])}/`,
      headers: developerAuth(rng, context),
    };
  }
  const iccid = segment(rng, context.iccids);
  const messageId = rng.chance(0.5) ? earlierMessageId(input) : urlText(rng, oddString(rng, earlierMessageId(input)));
  return developerGet(input, 'get-sms', `/developer/api/sims/${iccid}/sms/${messageId}/`, {});
};

/** callback_url values that need no DNS lookup (the harness never makes the service call out). */
const callbackUrls = [
  'http://127.0.0.1/cb', 'https://127.0.0.1/cb', 'https://10.0.0.1/', 'https://[::1]/', 'https://localhost/cb', 'https://169.254.169.254/latest',
  'https://0x7f.1/', 'https://2130706433/', 'https://[::ffff:127.0.0.1]/', 'https://user:pw@127.0.0.1/', 'ftp://127.0.0.1/', 'javascript:alert(1)',
  'not a url', 'https://', 'https:///x', '//127.0.0.1/', 'https://127.0.0.1:99999/', 'https://%00/', `https://127.0.0.1/${'a'.repeat(2_100)}`,
];

const sendSms = (input: RouteInput): RouteRequest => {
  const { rng, context, runSeed, index } = input;
  const method = methodFor(rng, 'POST');
  const plausible: Record<string, unknown> = { message: rng.pick(['Hello from the fuzz harness', 'x', 'a'.repeat(160), 'Ünïcødé ✓']) };
  if (rng.chance(0.8)) plausible.message_id = fuzzMessageId(runSeed, index);
  if (rng.chance(0.4)) plausible.callback_url = rng.pick(callbackUrls);
  const { headers, body, mutated } = withBody(rng, developerAuth(rng, context), plausible);
  return {
    label: `send-sms: ${method !== 'POST' ? `method ${method}` : mutated ? 'body mutated' : 'body'}`,
    method,
    target: pathVariant(rng, `/developer/api/sims/${segment(rng, context.iccids)}/sms/`) + (rng.chance(0.1) ? queryString(rng, {}) : ''),
    headers,
    body,
  };
};

const receipt = (input: RouteInput): RouteRequest => {
  const { rng, context } = input;
  const method = methodFor(rng, 'POST');
  const plausible = {
    reference: rng.chance(0.9) ? earlierMessageId(input) : 'r'.repeat(rng.pick([1_000, 2_048, 4_000])),
    provider_message_id: `pm_${rng.int(0, 1e9)}`,
    status: rng.pick(['delivered', 'expired', 'failed']),
    occurred_at: rng.pick(['2026-11-22T10:00:00.000Z', '2026-11-22T10:00:00+01:00']),
  };
  const { headers, body, mutated } = withBody(rng, [], plausible);
  const signature = rng.weighted<() => HeaderLines>([
    [12, () => [['X-Provider-Signature', providerSignature(body, context.smsReceiptSecret)]]],
    [1, () => []],
    [1, () => [['X-Provider-Signature', providerSignature(body, `${context.smsReceiptSecret}x`)]]],
    [1, () => [['X-Provider-Signature', rng.pick(['sha256=', 'sha256=zz', 'sha1=00', providerSignature(body, context.smsReceiptSecret).toUpperCase(), headerSafe(oddString(rng))])]]],
    [1, () => [['X-Provider-Signature', 'sha256=00'], ['X-Provider-Signature', providerSignature(body, context.smsReceiptSecret)]]],
  ])();
  return {
    label: `receive-sms-receipt: ${method !== 'POST' ? `method ${method}` : mutated ? 'signed body mutated' : 'signed body'}`,
    method,
    target: pathVariant(rng, '/sms-provider/receipts'),
    headers: [...signature, ...headers],
    body,
  };
};

const email = (rng: Rng, context: FuzzContext, index: number) =>
  rng.chance(0.2) ? rng.pick(context.accountEmails) : `fuzz${index}@${rng.pick(['example.com', 'gmail.com', 'initech.example'])}`;

const address = (rng: Rng, withName: boolean) => ({
  ...(withName ? { name: 'Fuzz Buyer' } : {}),
  line1: '1 Test Street',
  ...(rng.chance(0.3) ? { line2: 'Flat 2', region: 'Greater London', phone: '+447700900123' } : {}),
  city: 'London',
  postal_code: 'SW1A 1AA',
  country: rng.pick(['GB', 'DE', 'US', 'FR', 'gb']),
});

const checkoutBodies = {
  'checkout-esim': (rng: Rng, context: FuzzContext, index: number) => ({
    cart: rng.chance(0.2)
      ? [{ catalog_sku: rng.pick(context.skus.esim), quantity: 1, topup_iccid: rng.pick(context.deviceIccids) }]
      : [{ catalog_sku: rng.pick(context.skus.esim), quantity: rng.int(1, 2) }],
    customer_email: email(rng, context, index),
    customer_country: rng.pick(['GB', 'DE', 'US']),
    ...(rng.chance(0.5) ? { customer_name: 'Fuzz Buyer', customer_phone: '+447700900123', sms_opt_in: rng.pick([true, false]) } : {}),
    ...(rng.chance(0.2) ? { customer_id: `gid://shopify/Customer/${index}` } : {}),
  }),
  'checkout-physical': (rng: Rng, context: FuzzContext, index: number) => ({
    cart: [{ catalog_sku: rng.pick(context.skus.physical), quantity: rng.int(1, 2) }],
    customer_email: email(rng, context, index),
    customer_country: 'GB',
    customer_name: 'Fuzz Buyer',
    shipping_address: address(rng, true),
  }),
  'checkout-iot': (rng: Rng, context: FuzzContext, index: number) => ({
    cart: [{ sku: rng.pick(context.skus.iot), quantity: rng.int(1, 3) }],
    customer_email: email(rng, context, index),
    customer_country: 'GB',
    customer_first_name: 'Fuzz',
    customer_last_name: 'Buyer',
    ...(rng.chance(0.5) ? { company_name: 'Fuzz Ltd', title: 'CTO', purchasing_contact: { name: 'P', email: 'p@fuzz.example' }, customer_phone: '+447700900123', sms_opt_in: true } : {}),
    ...(rng.chance(0.3) ? { marketing_consent: { agreed: false, wording: 'Send me news', given_at: '2026-11-20T10:00:00Z' } } : {}),
    data_processing_consent: { agreed: true, wording: 'I agree to the processing of my data.', given_at: '2026-11-20T10:00:00Z' },
    billing_address: address(rng, false),
    shipping_address: address(rng, true),
  }),
};

const checkoutPaths = { 'checkout-esim': '/api/v1/checkout', 'checkout-physical': '/api/v1/physical-checkout', 'checkout-iot': '/api/v1/iot-physical-checkout' };

const checkout = (name: keyof typeof checkoutPaths) => (input: RouteInput): RouteRequest => {
  const { rng, context, runSeed, index } = input;
  const method = methodFor(rng, 'POST');
  const idempotency: HeaderLines = rng.weighted<() => HeaderLines>([
    [6, () => []],
    [2, () => [['Idempotency-Key', `fuzz-${runSeed}-${index}`]]],
    [1, () => [['Idempotency-Key', `fuzz-shared-${rng.int(1, 3)}`]]],
    [1, () => [['Idempotency-Key', headerSafe(oddString(rng)).slice(0, 12_000)]]],
  ])();
  const { headers, body, mutated } = withBody(rng, [...storefrontAuth(rng, context), ...idempotency], checkoutBodies[name](rng, context, index));
  return {
    label: `${name}: ${method !== 'POST' ? `method ${method}` : mutated ? 'body mutated' : 'body'}${idempotency.length ? ' with Idempotency-Key' : ''}`,
    method,
    target: pathVariant(rng, checkoutPaths[name]) + (rng.chance(0.1) ? queryString(rng, {}) : ''),
    headers,
    body,
  };
};

const stripeEventTypes = ['payment_intent.succeeded', 'payment_intent.payment_failed', 'payment_intent.canceled', 'charge.refunded', 'payment_intent.created'];

const stripeWebhook = (input: RouteInput): RouteRequest => {
  const { rng, context, nowSeconds } = input;
  const method = methodFor(rng, 'POST');
  const type = rng.pick(stripeEventTypes);
  const plausible = {
    id: `evt_fuzz${rng.int(0, 1e9)}`,
    object: 'event',
    api_version: stripeApiVersion,
    created: 1_795_314_900 + rng.int(0, 1e6),
    type,
    livemode: false,
    pending_webhooks: 1,
    request: { id: `req_fuzz${rng.int(0, 1e9)}`, idempotency_key: null },
    data: {
      object: {
        id: `pi_fuzz${rng.int(0, 1e9)}`,
        object: 'payment_intent',
        amount: rng.pick([1440, 999, 0, 1]),
        amount_received: rng.pick([1440, 0]),
        currency: rng.pick(['gbp', 'eur', 'GBP']),
        status: 'succeeded',
        metadata: rng.chance(0.85) ? { order_id: uuid(rng) } : {},
      },
    },
  };
  const { headers, body, mutated } = withBody(rng, [['User-Agent', 'Stripe/1.0 (+https://stripe.com/docs/webhooks)']], plausible);
  const secret = context.stripeWebhookSecret;
  let timeBound = false;
  const signature = rng.weighted<() => HeaderLines>([
    [12, () => {
      timeBound = true;
      return [['Stripe-Signature', stripeSignature(body, secret, nowSeconds)]];
    }],
    [1, () => []],
    [1, () => [['Stripe-Signature', stripeSignature(body, secret, nowSeconds - rng.pick([301, 3_600, 86_400 * 400]))]]],
    [1, () => [['Stripe-Signature', stripeSignature(body, `${secret}x`, nowSeconds)]]],
    [1, () => [['Stripe-Signature', rng.pick(['t=abc,v1=00', 'v1=00', 't=1', ',,,', `t=${nowSeconds},v0=00`, `t=${'9'.repeat(400)},v1=00`, headerSafe(oddString(rng))])]]],
    [1, () => {
      timeBound = true;
      return [['Stripe-Signature', `t=${nowSeconds},v1=${'0'.repeat(64)},${stripeSignature(body, secret, nowSeconds).split(',')[1]}`]];
    }],
  ])();
  return {
    label: `stripe-webhook: ${method !== 'POST' ? `method ${method}` : mutated ? 'signed event mutated' : 'signed event'}`,
    method,
    target: pathVariant(rng, '/api/v1/webhooks/stripe'),
    headers: [...signature, ...headers],
    body,
    timeBound,
  };
};

/** Paths no route serves, and near-misses of the ones that exist. */
const strayPaths = [
  '/', '//', '/developer', '/developer/api', '/developer/api/', '/developer/api/x', '/developer/api/sims/1001/sms/x/y/z',
  '/developer/api/sims/1001/extra/', '/api', '/api/v1', '/api/v1/', '/api/v2/checkout', '/API/V1/CHECKOUT', '/api/v1/webhooks',
  '/sms-provider', '/sms-provider/receipts/x', '/_local/stripe/v1/payment_intents/pi_x', '/developer/api/sims/%2e%2e/', '/%', '/%zz',
  '/developer/api/%00', '/developer/api/sims/../sims/', '/favicon.ico', '/developer/api/sims/1001/sms/', '/api/v1/checkout/x',
];

const fallback = (input: RouteInput): RouteRequest => {
  const { rng, context } = input;
  const method = rng.pick(methods);
  const path = rng.chance(0.7) ? rng.pick(strayPaths) : `/${urlText(rng, oddString(rng))}/${urlText(rng, oddString(rng))}`;
  const auth = path.startsWith('/developer') ? developerAuth(rng, context) : rng.chance(0.5) ? storefrontAuth(rng, context) : [];
  return {
    label: `fallback: ${method} stray path`,
    method,
    target: path + queryString(rng, { page: ['1'], status: ['active'] }),
    headers: [...auth, ...extraHeaders(rng)],
    ...(rng.chance(0.3) ? { body: Buffer.from(oddString(rng), 'utf8'), headers: [...auth, ...contentType(rng)] } : {}),
  };
};

/** Webhook subscription urls: the callback_url oddities, and public IP literals (accepted with no DNS lookup, never called). */
const webhookUrls = [...callbackUrls, 'https://1.1.1.1/hook', 'https://[2606:4700:4700::1111]/hook', 'https://8.8.8.8:8443/x?y=1'];

const eventNames = ['line.activated', 'line.suspended', 'usage.updated', 'identity.rotated', 'identity.verified', 'line.deleted', 'LINE.ACTIVATED', ''];

/** POST /developer/api/webhooks/ (issue #15): url, events and description, odd and plausible. */
const createWebhook = (input: RouteInput): RouteRequest => {
  const { rng, context } = input;
  const method = methodFor(rng, 'POST');
  const plausible: Record<string, unknown> = { url: rng.pick(webhookUrls) };
  if (rng.chance(0.5)) plausible.events = Array.from({ length: rng.int(0, 4) }, () => rng.pick(eventNames));
  if (rng.chance(0.3)) plausible.description = rng.pick(['fleet dashboard', 'd'.repeat(201), oddString(rng)]);
  const { headers, body, mutated } = withBody(rng, developerAuth(rng, context), plausible);
  return {
    label: `create-webhook: ${method !== 'POST' ? `method ${method}` : mutated ? 'body mutated' : 'body'}`,
    method,
    target: pathVariant(rng, '/developer/api/webhooks/'),
    headers,
    body,
  };
};

/** A subscription id segment: well-formed (unknown), malformed, or odd text. */
const webhookId = (rng: Rng): string =>
  rng.weighted<() => string>([
    [4, () => `wh_${Array.from({ length: 24 }, () => rng.pick([...'0123456789abcdef'])).join('')}`],
    [1, () => rng.pick(['wh_', 'wh_XYZ', 'WH_0123456789ABCDEF01234567', `wh_${'0'.repeat(2_100)}`])],
    [1, () => urlText(rng, oddString(rng))],
  ])();

/** The routes on one subscription: GET, DELETE, rotate-secret and deliveries. */
const webhookItem =
  (name: string, suffix: string, own: 'GET' | 'POST' | 'DELETE') =>
  (input: RouteInput): RouteRequest => {
    const { rng, context } = input;
    const method = methodFor(rng, own);
    return {
      label: `${name}: ${method === own ? 'id' : `method ${method}`}`,
      method,
      target: pathVariant(rng, `/developer/api/webhooks/${webhookId(rng)}/${suffix}`),
      headers: [...developerAuth(rng, context), ...extraHeaders(rng)],
      ...(rng.chance(0.2) ? { body: Buffer.from('{"url":"https://1.1.1.1/"}') } : {}),
    };
  };

/** An action id segment (issue #33): well-formed (unknown), malformed, or odd text. */
const actionId = (rng: Rng): string =>
  rng.weighted<() => string>([
    [3, () => `act_${Array.from({ length: 28 }, () => rng.pick([...'0123456789abcdef'])).join('')}`],
    [1, () => rng.pick(['act_', 'act_XYZ', 'constructor', `act_${'0'.repeat(2_100)}`])],
    [1, () => urlText(rng, oddString(rng))],
  ])();

/** A SIM segment of the action routes: an id, an ICCID, or odd text (segment's mix). */
const actionSim = (rng: Rng, context: RouteInput['context']): string =>
  rng.chance(0.5) ? segment(rng, context.simIds.map(String)) : segment(rng, context.iccids);

/** POST /developer/api/sims/{sim}/actions/ (issue #33): plausible actions, odd bodies, an Idempotency-Key now and then. */
const requestSimAction = (input: RouteInput): RouteRequest => {
  const { rng, context } = input;
  const method = methodFor(rng, 'POST');
  const plausible: Record<string, unknown> = { action: rng.pick(['activate', 'suspend', 'resume', 'terminate', 'reboot', 'constructor', '']) };
  if (rng.chance(0.5)) plausible.reason = rng.pick(['fuzz [silent]', 'r'.repeat(201), oddString(rng)]);
  if (rng.chance(0.2)) plausible.confirm = rng.pick([...context.iccids, 'x']);
  const { headers, body, mutated } = withBody(rng, developerAuth(rng, context), plausible);
  if (rng.chance(0.2)) headers.push(['Idempotency-Key', rng.pick(['fuzz-key', 'two words', 'k'.repeat(300)])]);
  return {
    label: `request-sim-action: ${method !== 'POST' ? `method ${method}` : mutated ? 'body mutated' : 'body'}`,
    method,
    target: pathVariant(rng, `/developer/api/sims/${actionSim(rng, context)}/actions/`),
    headers,
    body,
  };
};

/** The route generators with their weights. */
export const routeGenerators: ReadonlyArray<readonly [number, (input: RouteInput) => RouteRequest]> = [
  [9, listSims],
  [9, getSim],
  [14, sendSms],
  [7, getSms],
  [12, receipt],
  [10, checkout('checkout-esim')],
  [7, checkout('checkout-physical')],
  [8, checkout('checkout-iot')],
  [12, stripeWebhook],
  [6, fallback],
  [6, createWebhook],
  [4, (input) => developerGet(input, 'list-webhooks', '/developer/api/webhooks/', {})],
  [4, webhookItem('get-webhook', '', 'GET')],
  [4, webhookItem('delete-webhook', '', 'DELETE')],
  [4, webhookItem('rotate-webhook-secret', 'rotate-secret/', 'POST')],
  [4, webhookItem('list-webhook-deliveries', 'deliveries/', 'GET')],
  [5, requestSimAction],
  [3, (input) => developerGet(input, 'list-sim-actions', `/developer/api/sims/${actionSim(input.rng, input.context)}/actions/`, { page: ['1', '0', '2', 'x'], page_size: ['1', '100', '101'] })],
  [3, (input) => developerGet(input, 'get-sim-action', `/developer/api/sims/${actionSim(input.rng, input.context)}/actions/${actionId(input.rng)}/`, {})],
];
