import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSmsRoute } from '../../shared/routes/get-sms';
import { listSimsRoute } from '../../shared/routes/list-sims';
import { countCalls, type CallCounter } from '../../shared/db/call-counter';
import { useTestRuntime } from '../support/runtime';
import { json, send } from './support/http';
import { invoke, tableWithSeed, type TestClock } from './support/invoke';
import { apiKeyOf, areaASeed, tokenOf, type TestUser } from './support/seed';

/**
 * Issue #10, "no input reaches a 5xx", for A1 and A2: path parameters and query values that
 * would become DynamoDB keys are checked for length and form first; what cannot name a SIM or
 * a customer is answered 404 without a key DynamoDB would refuse (a partition key over 2,048
 * bytes is a ValidationException, a 500, on DynamoDB; DynamoDB Local lets some through, so
 * the calls themselves are checked too).
 */

const users: TestUser[] = Array.from({ length: 40 }, (_, index) => ({ id: `odd${index}`, customer: 'root' }));
let next = 0;
const fresh = (): Record<string, string> => {
  const user = users[next++];
  if (!user) throw new Error('no unused test user left');
  return { Authorization: `Bearer ${tokenOf(user.id)}`, 'X-Customer-API-Key': apiKeyOf('root') };
};

const seededAt = Date.now();
const runtime = useTestRuntime({ seed: areaASeed(seededAt, users) });

const answer = async (path: string) => {
  const { status, headers, body } = await send(runtime.baseUrl, path, { headers: fresh() });
  return { status, contentType: headers['content-type'], body };
};
const notFound = { status: 404, contentType: json['content-type'], body: { detail: 'Not found.', code: 'not_found' } };
const customerNotFound = {
  status: 404,
  contentType: json['content-type'],
  body: { detail: "No customer with this name in the API key's customer group.", code: 'customer_not_found' },
};

describe('A2 GET /developer/api/sims/<sim_id>/ with odd ids', () => {
  it('answers 404 not_found for 16 to 10,000 digits, signs, exponents, Unicode digits and U+FFFF', async () => {
    for (const simId of ['9'.repeat(16), '9'.repeat(10_000), '-1', '1e3', '%EF%BC%91', '1%EF%BF%BF', '%F0%9F%98%80']) {
      expect(await answer(`/developer/api/sims/${simId}/`), simId).toEqual(notFound);
    }
  });
});

describe('A1 GET /developer/api/sims/ with odd query values', () => {
  it('answers 404 customer_not_found for a customer of 3,000 characters, 600 emoji (2,400 bytes), or with U+FFFF or NUL', async () => {
    for (const customer of ['x'.repeat(3_000), '%F0%9F%98%80'.repeat(600), 'Root%20Group%EF%BF%BF', 'North%00Ltd']) {
      expect(await answer(`/developer/api/sims/?customer=${customer}`)).toEqual(customerNotFound);
    }
  });

  it('answers 200 with no results for the largest page, and 400 for a page beyond safe integers', async () => {
    expect(await answer('/developer/api/sims/?page=9007199254740991&page_size=100')).toEqual({
      status: 200,
      contentType: json['content-type'],
      body: { count: 5, page: 9007199254740991, page_size: 100, total_pages: 1, results: [] },
    });
    expect(await answer(`/developer/api/sims/?page=${'9'.repeat(400)}`)).toEqual({
      status: 400,
      contentType: json['content-type'],
      body: { detail: 'page must be a whole number, 1 or more.', code: 'invalid_page' },
    });
  });

  it('answers 400 invalid_updated_after for 10,000 characters, and reads a 5,000-digit fraction as milliseconds', async () => {
    expect(await answer(`/developer/api/sims/?updated_after=${'2'.repeat(10_000)}`)).toEqual({
      status: 400,
      contentType: json['content-type'],
      body: { detail: 'updated_after must be an ISO-8601 date-time, such as 2026-11-20T10:00:00+00:00.', code: 'invalid_updated_after' },
    });
    const recent = new Date(seededAt - 60_000).toISOString().slice(0, 19);
    expect((await answer(`/developer/api/sims/?updated_after=${recent}.${'0'.repeat(5_000)}Z`)).status).toBe(200);
  });
});

describe('the keys that odd values would make are never sent', () => {
  const clock: TestClock = { now: Date.now() };
  let counter: CallCounter;
  let handlers: ReturnType<typeof build>;
  let close: () => void;
  const build = (deps: Parameters<typeof listSimsRoute>[0] & object) => ({
    'list-sims': listSimsRoute(deps) as never,
    'get-sms': getSmsRoute(deps) as never,
  });

  beforeAll(async () => {
    const seeded = await tableWithSeed(areaASeed(clock.now, [{ id: 'keys', customer: 'root' }]), clock);
    counter = countCalls(seeded.db);
    handlers = build(seeded.deps);
    close = () => seeded.client.destroy();
  });

  afterAll(() => close?.());

  const headers = { Authorization: `Bearer ${tokenOf('keys')}`, 'X-Customer-API-Key': apiKeyOf('root') };
  const sentKeys = () => JSON.stringify(counter.calls.map((call) => call.input));

  it('makes no customer Query for a name that cannot be a key', async () => {
    clock.now += 10_000;
    counter.reset();
    const result = await invoke(handlers, `/developer/api/sims/?customer=${'x'.repeat(3_000)}`, { headers });
    expect([result.status, (result.body as { code: string }).code]).toEqual([404, 'customer_not_found']);
    expect(counter.calls.map((call) => call.command)).not.toContain('QueryCommand');
    expect(sentKeys()).not.toContain('x'.repeat(100));
  });

  it('makes no message GetItem for a message id that cannot exist', async () => {
    for (const messageId of ['m'.repeat(2_045), 'm%EF%BF%BF']) {
      counter.reset();
      const result = await invoke(handlers, `/developer/api/sims/8944500000000001001/sms/${messageId}/`, { headers });
      expect([result.status, (result.body as { code: string }).code]).toEqual([404, 'not_found']);
      expect(sentKeys()).not.toContain('MSG#');
    }
  });
});
