/**
 * The emulator's API: the PaymentIntent endpoints of Stripe's v1 API that the service and a
 * storefront's browser (Stripe.js) use, with Stripe's parameter checks, list and search
 * shapes. Authentication: the secret key (Bearer or Basic) may do anything; a publishable
 * key (header or Stripe.js's `key` parameter) or no key at all may retrieve, confirm and
 * cancel one intent with its `client_secret` (Stripe requires the publishable key there and
 * the secret key for cancel: the emulator takes the client_secret as enough, so that a curl
 * can pay; written in docs/local-runtime.md).
 */
import type { Form, FormValue } from './form';
import {
  invalidInteger, invalidValue, parameterMissing, unauthorized, unknownParameter, unrecognizedUrl, StripeEmulatorError,
} from './errors';
import { publishableView, type CreateParameters, type IntentStore, type PaymentIntent, type Transition } from './intents';

/** Who is calling. */
export type Caller = { kind: 'secret'; key: string } | { kind: 'client'; key?: string };

/** A request as the routes see it. */
export interface EmulatorRequest {
  method: string;
  /** Below the mount, e.g. `/v1/payment_intents/pi_123/confirm`. */
  path: string;
  params: Form;
  caller: Caller;
}

/** What a route answers: the JSON body and, for a change of state, the transition. */
export interface RouteAnswer {
  status: number;
  body: unknown;
  transitions: Transition[];
}

const text = (params: Form, name: string): string | undefined => {
  const value = params[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidValue(name, `Invalid string: ${JSON.stringify(value)}`);
  return value;
};

const integer = (params: Form, name: string, required: boolean): number | undefined => {
  const value = text(params, name);
  if (value === undefined || value === '') {
    if (required) throw parameterMissing(name);
    return undefined;
  }
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw invalidInteger(name, value);
  return Number(value);
};

const onlyKnown = (params: Form, known: string[]) => {
  for (const name of Object.keys(params)) if (!known.includes(name)) throw unknownParameter(name);
};

/** Stripe's minimum charge amounts, in the minor unit (https://docs.stripe.com/currencies#minimum-and-maximum-charge-amounts). */
const minimumAmounts = new Map([['gbp', 30], ['usd', 50], ['eur', 50]]);

const createParameters = (params: Form): CreateParameters => {
  onlyKnown(params, [
    'amount', 'currency', 'metadata', 'receipt_email', 'description', 'statement_descriptor', 'payment_method_types',
    'automatic_payment_methods', 'payment_method', 'confirm', 'expand',
  ]);
  const amount = integer(params, 'amount', true)!;
  const currencyText = text(params, 'currency');
  if (currencyText === undefined || currencyText === '') throw parameterMissing('currency');
  const currency = currencyText.toLowerCase();
  if (!/^[a-z]{3}$/.test(currency)) throw invalidValue('currency', `Invalid currency: ${currencyText}.`, 'parameter_invalid_string');
  if (amount < 1) throw invalidValue('amount', 'This value must be greater than or equal to 1.', 'parameter_invalid_integer');
  const minimum = minimumAmounts.get(currency);
  if (minimum !== undefined && amount < minimum) {
    throw invalidValue('amount', `Amount must be at least ${minimum} ${currency}`, 'amount_too_small');
  }
  const metadataValue = params.metadata ?? {};
  if (typeof metadataValue !== 'object' || Array.isArray(metadataValue)) throw invalidValue('metadata', 'Invalid metadata: must be a hash');
  const kept: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(metadataValue)) {
    if (typeof value !== 'string') throw invalidValue(`metadata[${name}]`, 'Invalid metadata value: must be a string');
    if (name.length > 40) throw invalidValue('metadata', `Metadata keys can have up to 40 characters; "${name}" has ${name.length}.`);
    if (value.length > 500) throw invalidValue(`metadata[${name}]`, 'Metadata values can have up to 500 characters.');
    // Stripe deletes a key set to the empty string; at creation it is simply not stored.
    if (value !== '') kept.push([name, value]);
  }
  // Defined, not assigned: a key named __proto__ is a metadata key like any other.
  const metadata: Record<string, string> = Object.fromEntries(kept);
  if (Object.keys(metadata).length > 50) throw invalidValue('metadata', 'You can have up to 50 metadata keys.');
  const types = params.payment_method_types;
  if (types !== undefined && (!Array.isArray(types) || types.some((type) => typeof type !== 'string'))) {
    throw invalidValue('payment_method_types', 'Invalid array');
  }
  return {
    amount,
    currency,
    metadata,
    receipt_email: text(params, 'receipt_email') || undefined,
    description: text(params, 'description') || undefined,
    statement_descriptor: text(params, 'statement_descriptor') || undefined,
    payment_method_types: types as string[] | undefined,
  };
};

/** The intent named by a client request's client_secret; the secret key needs none. */
const authorizedIntent = (store: IntentStore, id: string, params: Form, caller: Caller): PaymentIntent => {
  if (caller.kind === 'secret') return store.get(id);
  const secret = text(params, 'client_secret');
  if (secret === undefined) {
    throw caller.key
      ? unauthorized('This API call cannot be made with a publishable API key. Please use a secret API key. You can find a list of your API keys at https://dashboard.stripe.com/account/apikeys.')
      : unauthorized('You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. \'Authorization: Bearer YOUR_SECRET_KEY\'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.');
  }
  const intent = store.get(id);
  if (intent.client_secret !== secret) {
    throw invalidValue('client_secret', 'The client_secret provided does not match the client_secret associated with the PaymentIntent.', 'payment_intent_invalid_parameter');
  }
  return intent;
};

const view = (intent: PaymentIntent, caller: Caller) => (caller.kind === 'secret' ? intent : publishableView(intent));

const requireSecret = (caller: Caller) => {
  if (caller.kind !== 'secret') {
    throw unauthorized(caller.key
      ? 'This API call cannot be made with a publishable API key. Please use a secret API key. You can find a list of your API keys at https://dashboard.stripe.com/account/apikeys.'
      : 'You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. \'Authorization: Bearer YOUR_SECRET_KEY\'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.');
  }
};

/** Stripe's list object, newest first, with limit / starting_after / ending_before. */
const listPage = (intents: PaymentIntent[], params: Form, url: string) => {
  const limit = integer(params, 'limit', false) ?? 10;
  if (limit < 1 || limit > 100) throw invalidValue('limit', 'This value must be less than or equal to 100.', 'parameter_invalid_integer');
  let from = 0;
  let to = intents.length;
  const after = text(params, 'starting_after');
  const before = text(params, 'ending_before');
  if (after !== undefined) {
    const at = intents.findIndex((intent) => intent.id === after);
    if (at === -1) throw invalidValue('starting_after', `No such payment_intent: '${after}'`, 'resource_missing');
    from = at + 1;
  }
  if (before !== undefined) {
    const at = intents.findIndex((intent) => intent.id === before);
    if (at === -1) throw invalidValue('ending_before', `No such payment_intent: '${before}'`, 'resource_missing');
    to = at;
    from = Math.max(0, to - limit);
  }
  const data = intents.slice(from, Math.min(to, from + limit));
  return { object: 'list', data, has_more: from + data.length < to, url };
};

/**
 * Stripe's search query language, the part that finds intents: clauses joined by `AND`, each
 * `field:'value'` (or `field:value`) for `status`, `currency`, `amount` and `metadata['key']`.
 * `OR`, negation and comparisons are not emulated (400 `parameter_invalid_string`).
 */
const searchFilter = (query: string): ((intent: PaymentIntent) => boolean) => {
  const clauses = query.trim().split(/\s+AND\s+/i);
  const tests = clauses.map((clause) => {
    const match = /^(status|currency|amount|metadata\[['"]([^'"]+)['"]\]):(?:'([^']*)'|"([^"]*)"|([^\s'"]+))$/.exec(clause.trim());
    if (!match) throw invalidValue('query', `The search query is not supported by the local Stripe emulator: ${clause}`);
    const value = match[3] ?? match[4] ?? match[5] ?? '';
    const field = match[1]!;
    if (match[2] !== undefined) {
      const key = match[2];
      return (intent: PaymentIntent) => Object.hasOwn(intent.metadata, key) && intent.metadata[key] === value;
    }
    return (intent: PaymentIntent) => String(intent[field as 'status' | 'currency' | 'amount']) === value;
  });
  return (intent) => tests.every((test) => test(intent));
};

/** Answers one request below the mount; throws StripeEmulatorError for Stripe's error answers. */
export const route = (store: IntentStore, request: EmulatorRequest): RouteAnswer => {
  const { method, path, params, caller } = request;
  const segments = path.split('/').filter((segment) => segment !== '').map(decodeURIComponent);
  if (segments[0] !== 'v1' || segments[1] !== 'payment_intents' || segments.length > 4) throw unrecognizedUrl(method, path);
  const id = segments[2];
  const action = segments[3];
  if (id === undefined) {
    requireSecret(caller);
    if (method === 'POST') {
      const created = store.create(createParameters(params));
      const transitions: Transition[] = [created];
      if (params.confirm === 'true') {
        const confirmed = store.confirm(created.intent.id, text(params, 'payment_method'));
        transitions.push(confirmed);
        if (confirmed.error) return { status: confirmed.error.status, body: { error: confirmed.error.body }, transitions };
        return { status: 200, body: confirmed.intent, transitions };
      }
      return { status: 200, body: created.intent, transitions };
    }
    if (method === 'GET') {
      onlyKnown(params, ['limit', 'starting_after', 'ending_before', 'expand']);
      return { status: 200, body: listPage(store.all(), params, '/v1/payment_intents'), transitions: [] };
    }
  } else if (id === 'search' && action === undefined && method === 'GET') {
    requireSecret(caller);
    onlyKnown(params, ['query', 'limit', 'page', 'expand']);
    const query = text(params, 'query');
    if (query === undefined || query === '') throw parameterMissing('query');
    const limit = integer(params, 'limit', false) ?? 10;
    if (limit < 1 || limit > 100) throw invalidValue('limit', 'This value must be less than or equal to 100.', 'parameter_invalid_integer');
    const found = store.all().filter(searchFilter(query));
    const data = found.slice(0, limit);
    return {
      status: 200,
      body: { object: 'search_result', data, has_more: found.length > limit, next_page: null, url: '/v1/payment_intents/search' },
      transitions: [],
    };
  } else if (action === undefined && method === 'GET') {
    onlyKnown(params, ['client_secret', 'expand', 'key', '_stripe_version']);
    return { status: 200, body: view(authorizedIntent(store, id, params, caller), caller), transitions: [] };
  } else if (action === 'confirm' && method === 'POST') {
    onlyKnown(params, [
      'client_secret', 'payment_method', 'return_url', 'expand', 'key', '_stripe_version', 'use_stripe_sdk', 'expected_payment_method_type',
      'receipt_email', 'setup_future_usage', 'payment_method_options', 'mandate_data', 'shipping', 'off_session', 'error_on_requires_action',
    ]);
    authorizedIntent(store, id, params, caller);
    const confirmed = store.confirm(id, text(params, 'payment_method'));
    if (confirmed.error) return { status: confirmed.error.status, body: { error: withView(confirmed.error, caller) }, transitions: [confirmed] };
    return { status: 200, body: view(confirmed.intent, caller), transitions: [confirmed] };
  } else if (action === 'cancel' && method === 'POST') {
    onlyKnown(params, ['client_secret', 'cancellation_reason', 'expand', 'key', '_stripe_version']);
    authorizedIntent(store, id, params, caller);
    const canceled = store.cancel(id, text(params, 'cancellation_reason'));
    return { status: 200, body: view(canceled.intent, caller), transitions: [canceled] };
  }
  throw unrecognizedUrl(method, path);
};

const withView = (error: StripeEmulatorError, caller: Caller): Record<string, FormValue | unknown> => {
  const intent = error.body.payment_intent as PaymentIntent | undefined;
  return intent ? { ...error.body, payment_intent: view(intent, caller) } : { ...error.body };
};
