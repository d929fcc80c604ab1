import { describe, expect, it } from 'vitest';
import { useTestRuntime } from '../support/runtime';
import { firstRequestHeaders, json, rateLimitHeaders, send } from './support/http';
import { apiKeyOf, areaASeed, expectedSims, isoDaysAgo, tokenOf, type TestUser } from './support/seed';

// Every request below uses a user of its own (fresh()), so that rate limits and the list poll
// interval of one test never touch another.
const pools: Record<string, number> = { root: 75, north: 10, northeast: 5, south: 5 };
const users: TestUser[] = Object.entries(pools).flatMap(([customer, size]) =>
  Array.from({ length: size }, (_, index) => ({ id: `${customer}${index}`, customer })),
);
const used: Record<string, number> = {};
const fresh = (customer: string): Record<string, string> => {
  const index = (used[customer] = (used[customer] ?? -1) + 1);
  if (index >= pools[customer]!) throw new Error(`no unused test user of ${customer} left`);
  return { Authorization: `Bearer ${tokenOf(`${customer}${index}`)}`, 'X-Customer-API-Key': apiKeyOf(customer) };
};

const seededAt = Date.now();
const sims = expectedSims(seededAt);
const runtime = useTestRuntime({ seed: areaASeed(seededAt, users) });

const get = (path: string, customer = 'root', method = 'GET') => send(runtime.baseUrl, path, { method, headers: fresh(customer) });
const whole = async (path: string, customer = 'root', method = 'GET') => {
  const { status, headers, body } = await get(path, customer, method);
  return { status, headers, body };
};
const notFound = { status: 404, headers: { ...json, ...firstRequestHeaders }, body: { detail: 'Not found.', code: 'not_found' } };
const page = (results: unknown[], count: number, extra: { page?: number; page_size?: number } = {}) => {
  const size = extra.page_size ?? 25;
  return {
    status: 200,
    headers: { ...json, ...firstRequestHeaders },
    body: { count, page: extra.page ?? 1, page_size: size, total_pages: Math.ceil(count / size), results },
  };
};
const badRequest = (code: string, detail: string) => ({ status: 400, headers: { ...json, ...firstRequestHeaders }, body: { detail, code } });

describe('A2 GET /developer/api/sims/<sim_id>/', () => {
  it('answers a SIM of the key\'s own customer with every field, group null and its data bundle', async () => {
    expect(await whole('/developer/api/sims/1001/')).toEqual({ status: 200, headers: { ...json, ...firstRequestHeaders }, body: sims[1001] });
  });

  it("answers a sub-customer's SIM with the sub-customer's name as group and total = base + overage", async () => {
    expect(await whole('/developer/api/sims/2001/')).toEqual({ status: 200, headers: { ...json, ...firstRequestHeaders }, body: sims[2001] });
    expect((await whole('/developer/api/sims/1002')).body).toEqual(sims[1002]); // trailing slash optional
  });

  it('serves a three-level tree: the grandchild is in the top key\'s scope, and group follows the key', async () => {
    expect((await whole('/developer/api/sims/3001/', 'root')).body).toEqual(sims[3001]);
    expect((await whole('/developer/api/sims/3001/', 'north')).body).toEqual(sims[3001]);
    expect((await whole('/developer/api/sims/3001/', 'northeast')).body).toEqual({ ...sims[3001], group: null });
    expect((await whole('/developer/api/sims/2001/', 'north')).body).toEqual({ ...sims[2001], group: null });
  });

  it("never lets a sub-customer's key read its parent's, grandparent's or sibling's SIMs", async () => {
    expect(await whole('/developer/api/sims/1001/', 'north')).toEqual(notFound);
    expect(await whole('/developer/api/sims/1001/', 'northeast')).toEqual(notFound);
    expect(await whole('/developer/api/sims/2001/', 'northeast')).toEqual(notFound);
    expect(await whole('/developer/api/sims/2001/', 'south')).toEqual(notFound);
    expect(await whole('/developer/api/sims/4001/', 'north')).toEqual(notFound);
  });

  it('answers an out-of-scope SIM and a missing SIM with byte-identical responses', async () => {
    const outOfScope = await get('/developer/api/sims/9001/');
    const missing = await get('/developer/api/sims/123456/');
    const parentOfKey = await get('/developer/api/sims/1001/', 'north');
    expect(outOfScope).toEqual({ ...notFound, rawBody: '{"detail":"Not found.","code":"not_found"}' });
    expect(missing.rawBody).toBe(outOfScope.rawBody);
    expect(parentOfKey.rawBody).toBe(outOfScope.rawBody);
    expect([missing.status, missing.headers]).toEqual([outOfScope.status, outOfScope.headers]);
  });

  it.each(['abc', '1.5', '-1', '1e3', '0x10', '1234567890123456'])('answers a sim_id that is not a SIM id (%s) with 404 not_found', async (id) => {
    expect(await whole(`/developer/api/sims/${id}/`)).toEqual(notFound);
  });
});

describe('A1 GET /developer/api/sims/', () => {
  it('lists every SIM in scope ordered by id, in the list envelope', async () => {
    expect(await whole('/developer/api/sims/')).toEqual(page([sims[1001], sims[1002], sims[2001], sims[3001], sims[4001]], 5));
  });

  it("lists only a sub-customer's subtree for its key, group relative to the key", async () => {
    expect(await whole('/developer/api/sims/', 'north')).toEqual(page([{ ...sims[2001], group: null }, sims[3001]], 2));
    expect(await whole('/developer/api/sims', 'northeast')).toEqual(page([{ ...sims[3001], group: null }], 1));
  });

  it('filters by status', async () => {
    expect(await whole('/developer/api/sims/?status=active')).toEqual(page([sims[1001], sims[2001]], 2));
    expect(await whole('/developer/api/sims/?status=dispatched')).toEqual(page([], 0));
  });

  it('filters by customer name: only the SIMs that customer owns directly', async () => {
    expect(await whole('/developer/api/sims/?customer=North%20Ltd')).toEqual(page([sims[2001]], 1));
    expect(await whole('/developer/api/sims/?customer=North+East+Ltd')).toEqual(page([sims[3001]], 1));
    expect(await whole('/developer/api/sims/?customer=Root%20Group')).toEqual(page([sims[1001], sims[1002]], 2));
    expect(await whole('/developer/api/sims/?customer=North%20East%20Ltd', 'north')).toEqual(page([sims[3001]], 1));
    expect(await whole('/developer/api/sims/?customer=North%20Ltd&status=trial')).toEqual(page([], 0));
  });

  it.each([
    ['a name no customer has', 'root', 'Nobody%20Ltd'],
    ["another group's customer", 'root', 'Other%20Group'],
    ["the key's parent", 'north', 'Root%20Group'],
    ["the key's sibling", 'north', 'South%20Ltd'],
    ['a name in another case', 'root', 'north%20ltd'],
  ])('answers a customer filter naming %s with 404 customer_not_found', async (_case, customer, name) => {
    expect(await whole(`/developer/api/sims/?customer=${name}`, customer)).toEqual({
      status: 404,
      headers: { ...json, ...firstRequestHeaders },
      body: { detail: "No customer with this name in the API key's customer group.", code: 'customer_not_found' },
    });
  });

  it('filters by updated_after, given with any UTC offset', async () => {
    const tenDaysAgo = isoDaysAgo(seededAt, 10); // "...+00:00"
    const asPlusTwo = new Date(Date.parse(tenDaysAgo) + 2 * 3_600_000).toISOString().replace('.000Z', '+02:00');
    const expected = page([sims[2001], sims[3001], sims[4001]], 3);
    expect(await whole(`/developer/api/sims/?updated_after=${encodeURIComponent(tenDaysAgo)}`)).toEqual(expected);
    expect(await whole(`/developer/api/sims/?updated_after=${encodeURIComponent(asPlusTwo)}`)).toEqual(expected);
    // An unencoded "+" arrives as a space; it is read as the offset's sign.
    expect(await whole(`/developer/api/sims/?updated_after=${asPlusTwo}`)).toEqual(expected);
    expect(await whole(`/developer/api/sims/?updated_after=${tenDaysAgo.replace('+00:00', 'Z')}&status=active`)).toEqual(
      page([sims[2001]], 1),
    );
    // Strictly after: a SIM updated exactly then is not included.
    expect(await whole(`/developer/api/sims/?updated_after=${encodeURIComponent(isoDaysAgo(seededAt, 2))}`)).toEqual(
      page([sims[3001]], 1),
    );
  });

  it('pages through the results; a page beyond the last is empty', async () => {
    const all = [sims[1001], sims[1002], sims[2001], sims[3001], sims[4001]];
    expect(await whole('/developer/api/sims/?page_size=2')).toEqual(page(all.slice(0, 2), 5, { page_size: 2 }));
    expect(await whole('/developer/api/sims/?page_size=2&page=3')).toEqual(page(all.slice(4), 5, { page: 3, page_size: 2 }));
    expect(await whole('/developer/api/sims/?page=2&page_size=2')).toEqual(page(all.slice(2, 4), 5, { page: 2, page_size: 2 }));
    expect(await whole('/developer/api/sims/?page=4&page_size=2')).toEqual(page([], 5, { page: 4, page_size: 2 }));
    expect(await whole('/developer/api/sims/?page=2')).toEqual(page([], 5, { page: 2 }));
    expect(await whole('/developer/api/sims/?page_size=100')).toEqual(page(all, 5, { page_size: 100 }));
  });

  it.each([
    ['page=0', 'invalid_page', 'page must be a whole number, 1 or more.'],
    ['page=-1', 'invalid_page', 'page must be a whole number, 1 or more.'],
    ['page=abc', 'invalid_page', 'page must be a whole number, 1 or more.'],
    ['page=1.5', 'invalid_page', 'page must be a whole number, 1 or more.'],
    ['page=', 'invalid_page', 'page must be a whole number, 1 or more.'],
    ['page_size=0', 'invalid_page_size', 'page_size must be a whole number from 1 to 100.'],
    ['page_size=101', 'invalid_page_size', 'page_size must be a whole number from 1 to 100.'],
    ['page_size=ten', 'invalid_page_size', 'page_size must be a whole number from 1 to 100.'],
    ['status=Active', 'invalid_status_filter', 'status must be one of: active, inactive, suspended, cancelled, stock, dispatched, trial.'],
    ['status=', 'invalid_status_filter', 'status must be one of: active, inactive, suspended, cancelled, stock, dispatched, trial.'],
    ['updated_after=yesterday', 'invalid_updated_after', 'updated_after must be an ISO-8601 date-time, such as 2026-11-20T10:00:00+00:00.'],
    ['updated_after=2026-02-30T10:00:00Z', 'invalid_updated_after', 'updated_after must be an ISO-8601 date-time, such as 2026-11-20T10:00:00+00:00.'],
    ['updated_after=2026-11-20', 'invalid_updated_after', 'updated_after must be an ISO-8601 date-time, such as 2026-11-20T10:00:00+00:00.'],
    [`updated_after=${encodeURIComponent(isoDaysAgo(seededAt, 32))}`, 'updated_after_range_exceeded', 'updated_after may be at most 31 days in the past.'],
    ['page=0&status=lost', 'invalid_page', 'page must be a whole number, 1 or more.'],
    ['status=lost&updated_after=bad', 'invalid_status_filter', 'status must be one of: active, inactive, suspended, cancelled, stock, dispatched, trial.'],
  ])('answers %s with 400 %s', async (query, code, detail) => {
    expect(await whole(`/developer/api/sims/?${query}`)).toEqual(badRequest(code, detail));
  });

  it('answers two list polls within 5 s: the second with 429 rate_limited_poll_interval', async () => {
    const headers = fresh('root');
    expect((await send(runtime.baseUrl, '/developer/api/sims/?page_size=1', { headers })).status).toBe(200);
    const { status, headers: answered, body } = await send(runtime.baseUrl, '/developer/api/sims/', { headers });
    const retryAfter = Number(answered['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(5);
    expect({ status, headers: answered, body }).toEqual({
      status: 429,
      headers: { ...json, 'retry-after': String(retryAfter), ...rateLimitHeaders({ burst: 9, minute: 59, hour: 1499 }) },
      body: { detail: 'List requests must be at least 5 seconds apart.', code: 'rate_limited_poll_interval', retry_after_seconds: retryAfter },
    });
  });
});

describe('A2 with an ICCID instead of the SIM id', () => {
  it('answers 404 not_found saying that A2 takes the numeric SIM id and the SMS routes the ICCID, for any 19 or 20 digits', async () => {
    const hint = {
      ...notFound,
      body: {
        detail:
          'Not found: GET /developer/api/sims/<sim_id>/ takes the numeric SIM id (up to 15 digits); an ICCID (19 or 20 digits) is what the SMS routes take: /developer/api/sims/<iccid>/sms/.',
        code: 'not_found',
      },
    };
    // A seeded SIM's ICCID and digits no SIM has answer alike: the hint depends on the path's shape only.
    expect(await whole('/developer/api/sims/8944500000000001001/')).toEqual(hint);
    expect(await whole('/developer/api/sims/89440000000000000000/')).toEqual(hint);
    expect(await whole('/developer/api/sims/8944000000000000000/')).toEqual(hint);
    // 16 to 18 digits stay the plain 404.
    expect(await whole('/developer/api/sims/8944000000000000/')).toEqual(notFound);
  });
});

describe('other requests under /developer/api/', () => {
  it('answers an unknown path with 404 not_found and the rate-limit headers, after authentication', async () => {
    expect(await whole('/developer/api/sims/1001/usage/')).toEqual(notFound);
    expect(await whole('/developer/api/whatever')).toEqual(notFound);
  });

  it('authenticates paths with malformed percent-encoding and the bare /developer/api/ first: 401 without credentials, 404 with the rate-limit headers', async () => {
    const paths = ['/developer/api/%FF/', '/developer/api/%C0%AE/', '/developer/api/%ED%A0%80/', '/developer/api/sims/%FF/', '/developer/api/', '/developer/api'];
    const anonymous = await Promise.all(paths.map(async (path) => {
      const { status, headers, body } = await send(runtime.baseUrl, path);
      return { path, status, headers, body };
    }));
    expect(anonymous).toEqual(paths.map((path) => ({
      path,
      status: 401,
      headers: json,
      body: { detail: 'A personal bearer token is required: Authorization: Bearer bearer_<prefix>_<secret>.', code: 'bearer_token_required' },
    })));
    for (const path of paths) expect({ path, ...(await whole(path)) }).toEqual({ path, ...notFound });
  });

  it('answers a wrong method with 405 method_not_allowed, Allow and the rate-limit headers', async () => {
    expect(await whole('/developer/api/sims/', 'root', 'POST')).toEqual({
      status: 405,
      headers: { ...json, allow: 'GET', ...firstRequestHeaders },
      body: { detail: 'Method POST is not allowed on this path; use GET.', code: 'method_not_allowed' },
    });
    expect((await whole('/developer/api/sims/1001/', 'root', 'DELETE')).body).toEqual({
      detail: 'Method DELETE is not allowed on this path; use GET.',
      code: 'method_not_allowed',
    });
  });

  it('admits exactly 10 of 30 concurrent requests of one user; the rest are 429 rate_limited_burst', async () => {
    // The burst limit uses fixed 10-second windows: start early in one so that all 30 land in it.
    const intoWindow = Date.now() % 10_000;
    if (intoWindow > 6_000) await new Promise((resolve) => setTimeout(resolve, 10_050 - intoWindow));
    const headers = fresh('root');
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => send(runtime.baseUrl, '/developer/api/sims/1001/', { headers })),
    );
    const admitted = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(admitted.length).toBe(10);
    expect(admitted.map((answer) => answer.headers['x-ratelimit-remaining-burst']).sort()).toEqual(
      ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'],
    );
    for (const answer of refused) {
      const retryAfter = Number(answer.headers['retry-after']);
      expect({ status: answer.status, headers: answer.headers, body: answer.body }).toEqual({
        status: 429,
        headers: { ...json, 'retry-after': String(retryAfter), ...rateLimitHeaders({ burst: 0, minute: 50, hour: 1490 }) },
        body: { detail: 'Rate limit exceeded: at most 10 requests per 10 seconds.', code: 'rate_limited_burst', retry_after_seconds: retryAfter },
      });
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(10);
    }
  });
});
