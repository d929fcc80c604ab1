// A consumer's typed calls, one to each area, with types generated from the API's OpenAPI
// document by openapi-typescript (docs/clients.md):
//
//   npx openapi-typescript docs/openapi.json -o sim-api.d.ts
//
// test/docs/clients.test.ts generates sim-api.d.ts from the committed docs/openapi.json and
// compiles this file against it with tsc.
import type { components, paths } from './sim-api';

/** Area A: the list envelope of GET /developer/api/sims/ and its query parameters. */
type SimList = paths['/developer/api/sims/']['get']['responses'][200]['content']['application/json'];
type SimQuery = NonNullable<paths['/developer/api/sims/']['get']['parameters']['query']>;

/** Area B: the eSIM checkout's request and its 201 answer. */
type EsimCheckout = components['schemas']['EsimCheckoutRequest'];
type CheckoutResponse = paths['/api/v1/checkout']['post']['responses'][201]['content']['application/json'];

/** Every error answer of both areas: `{detail, code}`. */
type ApiError = components['schemas']['Error'];

/** A failed call: the HTTP status and the service's error body. */
export class ApiCallFailed extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiError,
  ) {
    super(`${status} ${body.code}: ${body.detail}`);
  }
}

const answer = async <T>(response: Response): Promise<T> => {
  if (!response.ok) throw new ApiCallFailed(response.status, (await response.json()) as ApiError);
  return (await response.json()) as T;
};

/** Area A: one page of the active SIMs of the API key's customer group. */
export const listActiveSims = async (baseUrl: string, bearerToken: string, apiKey: string, page = 1): Promise<SimList> => {
  const query: SimQuery = { status: 'active', page, page_size: 100 };
  const url = new URL('/developer/api/sims/', baseUrl);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, String(value));
  return answer<SimList>(
    await fetch(url, { headers: { Authorization: `Bearer ${bearerToken}`, 'X-Customer-API-Key': apiKey } }),
  );
};

/** Area B: an eSIM checkout; the same idempotency key makes a retry safe. */
export const checkoutEsim = async (
  baseUrl: string,
  serviceToken: string,
  body: EsimCheckout,
  idempotencyKey: string,
): Promise<CheckoutResponse> =>
  answer<CheckoutResponse>(
    await fetch(new URL('/api/v1/checkout', baseUrl), {
      method: 'POST',
      headers: { Authorization: `Bearer ${serviceToken}`, 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
      body: JSON.stringify(body),
    }),
  );

/** Both calls, typed end to end: the compiler knows every field. */
export const example = async (baseUrl: string, credentials: { bearer: string; apiKey: string; serviceToken: string }) => {
  const sims = await listActiveSims(baseUrl, credentials.bearer, credentials.apiKey);
  for (const sim of sims.results) console.log(sim.iccid, sim.status, sim.cost.total_cost, sim.data_bundle?.pool_used_mb ?? 'no bundle');

  const order = await checkoutEsim(
    baseUrl,
    credentials.serviceToken,
    { cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }], customer_email: 'traveller@example.com', customer_country: 'GB' },
    'order-attempt-7f3a',
  );
  console.log(order.order_id, order.amount_total, order.currency);
};
