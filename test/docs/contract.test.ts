import { describe, expect, it } from 'vitest';
import { fetchFromRuntime } from '../support/request';
import type { GatewayAnswerRecord } from '../../local/gateway';
import { answersChecked, contractProblems, recordAnswer, takeContractViolations } from '../support/contract';
import { useTestRuntime } from '../support/runtime';

/**
 * The response check of the HTTP tests (test/support/contract.ts): it finds what the document
 * does not describe, and every test runtime's gateway runs it on each answer.
 */

/** Every answer's request id (docs/openapi.json's commonResponseHeaders). */
const requestId = { 'x-request-id': '1f0c9a52-3b7e-4a8e-9d4f-5c2b6a7e8d90' };
const rateLimit = {
  ...requestId,
  'x-ratelimit-limit-burst': '10',
  'x-ratelimit-remaining-burst': '9',
  'x-ratelimit-limit-minute': '60',
  'x-ratelimit-remaining-minute': '59',
  'x-ratelimit-limit-hour': '1500',
  'x-ratelimit-remaining-hour': '1499',
};
const sim = {
  id: 1001,
  iccid: '8944500000000001001',
  msisdn: '447700900001',
  status: 'active',
  connection_status: 'active',
  customer_name: 'Acme Ltd',
  group: null,
  tariff_name: 'IoT 1GB',
  usage: { data_used_mb: '12.50', data_overage_mb: '0.00' },
  cost: { currency: 'GBP', base_cost: '£5.00', overage_cost: '£0.00', total_cost: '£5.00' },
  data_bundle: null,
  updated_at: '2026-11-20T10:00:00+00:00',
};
const answer = (overrides: Partial<GatewayAnswerRecord> & { json?: unknown }): GatewayAnswerRecord => ({
  method: 'GET',
  path: '/developer/api/sims/1001/',
  stage: 'route',
  status: 200,
  headers: { 'content-type': 'application/json', ...rateLimit },
  body: Buffer.from(JSON.stringify(overrides.json ?? sim)),
  ...overrides,
});
const error = (status: number, code: string, headers: Record<string, string> = {}) => ({
  status,
  json: { detail: 'x', code },
  headers: { 'content-type': 'application/json', ...rateLimit, ...headers },
});

describe('the response check', () => {
  it('passes an answer the document describes: status, body and required headers', () => {
    expect(contractProblems(answer({}))).toEqual([]);
    expect(contractProblems(answer({ path: '/developer/api/sims/1001' }))).toEqual([]);
    expect(contractProblems(answer(error(404, 'not_found')))).toEqual([]);
  });

  it('finds a body that strays from the schema: a field missing, one added, a wrong format', () => {
    const { iccid: _iccid, ...withoutIccid } = sim;
    expect(contractProblems(answer({ json: withoutIccid }))).toEqual(["body must have required property 'iccid'"]);
    expect(contractProblems(answer({ json: { ...sim, extra: 1 } }))).toEqual(['body must NOT have additional properties']);
    expect(contractProblems(answer({ json: { ...sim, cost: { ...sim.cost, total_cost: '5.00' } } }))).toEqual([
      'body/cost/total_cost must match pattern "^-?£\\d+\\.\\d{2}$"',
    ]);
  });

  it('finds an undocumented status, a code outside the status\'s enum and a missing required header', () => {
    expect(contractProblems(answer(error(409, 'duplicate_message_id')))).toEqual(['status 409 is not documented for GET /developer/api/sims/{sim_id}/']);
    expect(contractProblems(answer(error(404, 'customer_not_found')))[0]).toMatch(/^body\/code must be equal to one of the allowed values/);
    const { 'x-ratelimit-remaining-hour': _hour, ...fewer } = rateLimit;
    expect(contractProblems(answer({ headers: { 'content-type': 'application/json', ...fewer } }))).toEqual([
      'required header X-RateLimit-Remaining-Hour is missing',
    ]);
    const { 'x-request-id': _id, ...anonymous } = rateLimit;
    expect(contractProblems(answer({ headers: { 'content-type': 'application/json', ...anonymous } }))).toEqual([
      'required header X-Request-Id is missing',
    ]);
    expect(contractProblems(answer({ headers: { ...rateLimit, 'content-type': 'text/plain' } }))).toEqual([
      'content type "text/plain" is not application/json',
    ]);
    expect(contractProblems(answer({ ...error(429, 'rate_limited_burst'), json: { detail: 'x', code: 'rate_limited_burst', retry_after_seconds: 2 } }))).toEqual([
      'required header Retry-After is missing',
    ]);
  });

  it('lets another method of a documented path get its 405 or what comes before routing, and nothing else', () => {
    expect(contractProblems(answer({ method: 'DELETE', ...error(405, 'method_not_allowed', { allow: 'GET' }) }))).toEqual([]);
    expect(contractProblems(answer({ method: 'DELETE', ...error(405, 'method_not_allowed') }))).toEqual(['required header Allow is missing']);
    expect(contractProblems(answer({ method: 'DELETE', ...error(401, 'invalid_bearer_token') }))).toEqual([]);
    expect(contractProblems(answer({ method: 'DELETE' }))[0]).toMatch(/^DELETE is not an operation of \/developer\/api\/sims\/\{sim_id\}\//);
  });

  it('needs a documented error code for a path the document does not name, and only an error body from a gateway refusal', () => {
    expect(contractProblems(answer({ path: '/nope', stage: 'unrouted', ...error(404, 'not_found') }))).toEqual([]);
    expect(contractProblems(answer({ path: '/developer/api/nope', ...error(404, 'made_up') }))).toEqual(['code made_up is named nowhere in the document']);
    expect(contractProblems(answer({ stage: 'gateway', ...error(414, 'uri_too_long') }))).toEqual([]);
    expect(contractProblems(answer({ stage: 'gateway', status: 414, body: Buffer.from('<html>') }))).toEqual(['the body is not JSON']);
  });

  it('records each answer it finds wrong once, for contract-setup.ts to fail the test with', () => {
    takeContractViolations();
    recordAnswer(answer(error(409, 'duplicate_message_id')));
    recordAnswer(answer({}));
    const violations = takeContractViolations();
    expect(violations).toHaveLength(1);
    expect(violations[0]).toContain('GET /developer/api/sims/1001/ answered 409');
    expect(takeContractViolations()).toEqual([]);
  });
});

describe('a test runtime', () => {
  const runtime = useTestRuntime();

  it('checks every answer of its gateway against the document', async () => {
    const before = answersChecked();
    const unauthenticated = await fetchFromRuntime(`${runtime.baseUrl}/developer/api/sims/`);
    const unknown = await fetchFromRuntime(`${runtime.baseUrl}/api/v1/nothing-here`);
    expect([unauthenticated.status, unknown.status]).toEqual([401, 404]);
    expect(await unauthenticated.json()).toEqual({
      detail: 'A personal bearer token is required: Authorization: Bearer bearer_<prefix>_<secret>.',
      code: 'bearer_token_required',
    });
    expect(answersChecked() - before).toBe(2);
    expect(takeContractViolations()).toEqual([]);
  });
});
