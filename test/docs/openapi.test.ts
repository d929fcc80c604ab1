import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { commonResponseHeaders } from '../../scripts/openapi/headers';
import { openApiPath, renderOpenApiJson } from '../../scripts/openapi/render';
import { routes } from '../../shared/topology/routes';
import { eventTypes } from '../../shared/webhooks/event-types';

/**
 * docs/openapi.json (issue #13 point 1 and the black-box check): current with the code, one
 * operation per route of the route table, valid OpenAPI 3.1, and naming every route and every
 * error code of the specification with the limits, headers and security it states.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const committed = readFileSync(openApiPath, 'utf8');
const document = JSON.parse(committed);
type Operation = { operationId: string; parameters?: { name: string; in: string; required?: boolean; schema: Record<string, unknown> }[]; responses: Record<string, any>; security?: unknown[]; tags: string[]; requestBody?: any };
const operations: { path: string; method: string; operation: Operation }[] = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(
  ([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
);
const operationAt = (method: string, path: string): Operation => {
  const operation = document.paths[path]?.[method];
  if (!operation) throw new Error(`no ${method.toUpperCase()} ${path} in docs/openapi.json`);
  return operation;
};
const codesOf = (operation: Operation, status: number): string[] =>
  operation.responses[status]?.content?.['application/json']?.schema?.allOf?.[1]?.properties?.code?.enum ?? [];
const schema = (name: string) => document.components.schemas[name];

/** The spec's error tables (SPEC.md "Errors"): status, code and, for Area B, the endpoints. */
const specErrors = (() => {
  const spec = readFileSync(new URL('../../../shared/spec/SPEC.md', import.meta.url), 'utf8');
  const errors = spec.slice(spec.indexOf('\n## Errors'), spec.indexOf('\n## Limits'));
  const areaB = errors.indexOf('### Area B');
  const rows = (text: string) => [...text.matchAll(/^\| (\d{3}) \| ([a-z_]+) \|(?: ([B123, ]+) \|)?/gm)];
  return {
    areaA: rows(errors.slice(0, areaB)).map((row) => ({ status: Number(row[1]), code: row[2]! })),
    areaB: rows(errors.slice(areaB)).map((row) => ({ status: Number(row[1]), code: row[2]!, endpoints: row[3]!.split(',').map((e) => e.trim()) })),
  };
})();

const areaBPaths: Record<string, string> = { B1: '/api/v1/checkout', B2: '/api/v1/physical-checkout', B3: '/api/v1/iot-physical-checkout' };

describe('docs/openapi.json', () => {
  it('is what npm run docs generates from the code now (run npm run docs)', () => {
    expect(committed).toBe(renderOpenApiJson());
  });

  it('has one operation for every route of the route table, and no other', () => {
    const documented = operations.map(({ method, operation }) => `${method} ${operation.operationId}`).sort();
    const expected = routes.map((route) => `${route.method.toLowerCase()} ${route.name.replace(/-([a-z])/g, (_m, l: string) => l.toUpperCase())}`).sort();
    expect(documented).toEqual(expected);
    for (const route of routes) {
      const path = Object.keys(document.paths).find(
        (candidate) => candidate.replace(/\{[^}]+\}/g, '{}') === route.path.replace(/\{[^}]+\}/g, '{}'),
      );
      expect(path, `${route.method} ${route.path}`).toBeDefined();
      expect(document.paths[path!][route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
    }
  });

  it('is OpenAPI 3.1 whose every schema compiles as strict JSON Schema 2020-12 (the structure is the lint\'s struct rule)', () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    const strict = new Ajv2020({ strict: true, allErrors: true, keywords: ['example'] });
    addFormats(strict);
    const toDefs = (value: unknown) => JSON.parse(JSON.stringify(value).replace(/"#\/components\/schemas\//g, '"doc#/$defs/'));
    strict.addSchema({ $id: 'doc', $defs: toDefs(document.components.schemas) });
    for (const name of Object.keys(document.components.schemas)) {
      expect(() => strict.compile({ $ref: `doc#/$defs/${name}` }), name).not.toThrow();
    }
    // Every inline schema of the operations and the webhook too (parameters, headers, the error enums).
    const inline: unknown[] = [];
    const collect = (value: unknown): void => {
      if (typeof value !== 'object' || value === null) return;
      for (const [key, entry] of Object.entries(value)) {
        if (key === 'schema') inline.push(entry);
        else collect(entry);
      }
    };
    collect({ paths: document.paths, webhooks: document.webhooks });
    expect(inline.length).toBeGreaterThan(100);
    for (const schema of inline) {
      expect(() => strict.compile(toDefs(schema)), JSON.stringify(schema)).not.toThrow();
    }
  });

  it('names every endpoint of the specification with its method, and the delivery receipt as a webhook', () => {
    operationAt('get', '/developer/api/sims/');
    operationAt('get', '/developer/api/sims/{sim_id}/');
    operationAt('post', '/developer/api/sims/{iccid}/sms/');
    operationAt('get', '/developer/api/sims/{iccid}/sms/{message_id}/');
    for (const path of Object.values(areaBPaths)) operationAt('post', path);
    const receipt = document.webhooks.deliveryReceipt.post;
    expect(receipt.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/DeliveryReceipt' });
    expect(receipt.parameters.map((parameter: { name: string; required: boolean }) => [parameter.name, parameter.required])).toEqual([
      ['webhook-id', true],
      ['webhook-timestamp', true],
      ['webhook-signature', true],
    ]);
    expect(schema('DeliveryReceipt').properties.status.enum).toEqual(['delivered', 'expired', 'failed']);
  });

  it('lists every Area A error code of the specification under its status on the Area A operations', () => {
    expect(specErrors.areaA).toHaveLength(27);
    const areaA = operations.filter(({ path }) => path.startsWith('/developer/api/'));
    for (const { status, code } of specErrors.areaA) {
      const where = areaA.filter(({ operation }) => codesOf(operation, status).includes(code));
      expect(where.length, `${status} ${code}`).toBeGreaterThan(0);
    }
    // Those of every Area A request are on every Area A operation.
    for (const { operation } of areaA) {
      for (const code of ['bearer_token_required', 'invalid_bearer_token', 'user_inactive', 'api_key_required', 'invalid_api_key']) {
        expect(codesOf(operation, 401)).toContain(code);
      }
      // insufficient_scope (issue #33) on the operations that need a scope (the SIM routes), admin_role_required on the SIM action request.
      expect(codesOf(operation, 403).filter((code) => !['insufficient_scope', 'admin_role_required'].includes(code))).toEqual(['developer_access_required', 'tenant_scope_mismatch']);
      expect(codesOf(operation, 405)).toEqual(['method_not_allowed']);
      expect(codesOf(operation, 429)).toEqual(expect.arrayContaining(['rate_limited_burst', 'rate_limited_minute', 'rate_limited_hour']));
    }
    expect(codesOf(operationAt('get', '/developer/api/sims/'), 429)).toContain('rate_limited_poll_interval');
    for (const { path, operation } of areaA) expect(codesOf(operation, 403).includes('insufficient_scope'), path).toBe(path.startsWith('/developer/api/sims/'));
  });

  it('lists every Area B error code of the specification under its status on each endpoint the specification names', () => {
    expect(specErrors.areaB).toHaveLength(15);
    for (const { status, code, endpoints } of specErrors.areaB) {
      for (const endpoint of endpoints) expect(codesOf(operationAt('post', areaBPaths[endpoint]!), status), `${endpoint} ${status} ${code}`).toContain(code);
    }
  });

  it('gives an example body for every error code of every status', () => {
    for (const { path, method, operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const content = response.content['application/json'];
        const codes = codesOf(operation, Number(status));
        expect(codes.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
        expect(Object.values(content.examples).map((example: any) => example.value.code).sort(), `${method} ${path} ${status}`).toEqual([...codes].sort());
      }
    }
  });

  it('states the limits and patterns of the specification on parameters and bodies', () => {
    const list = operationAt('get', '/developer/api/sims/').parameters!;
    const parameter = (name: string) => list.find((entry) => entry.name === name)!;
    expect(parameter('page_size').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 25 });
    expect(parameter('page').schema).toMatchObject({ type: 'integer', minimum: 1, default: 1 });
    expect(parameter('status').schema.enum).toEqual(['active', 'inactive', 'suspended', 'cancelled', 'stock', 'dispatched', 'trial']);
    expect(parameter('updated_after').schema).toMatchObject({ type: 'string', format: 'date-time' });
    expect(parameter('customer').schema).toMatchObject({ type: 'string' });
    const iccid = operationAt('post', '/developer/api/sims/{iccid}/sms/').parameters!.find((entry) => entry.name === 'iccid')!;
    expect(iccid).toMatchObject({ in: 'path', required: true, schema: { type: 'string', pattern: '^\\d{1,20}$' } });
    expect(schema('SmsRequest').properties.message).toMatchObject({ type: 'string', maxLength: 160 });
    expect(schema('SmsRequest').required).toEqual(['message']);
    expect(schema('SmsRequest').properties.message_id.anyOf[0]).toMatchObject({ type: 'string', maxLength: 48 });
    expect(schema('SmsRequest').properties.callback_url.anyOf[0]).toMatchObject({ type: 'string', format: 'uri', pattern: '^https://' });
    const esim = schema('EsimCheckoutRequest');
    expect(esim.properties.cart).toMatchObject({ type: 'array', minItems: 1, maxItems: 20 });
    expect(esim.properties.cart.items.properties.quantity).toMatchObject({ type: 'integer', minimum: 1, maximum: 10 });
    expect(esim.properties.customer_name.anyOf[0]).toMatchObject({ maxLength: 200 });
    expect(esim.properties.customer_phone.anyOf[0]).toMatchObject({ maxLength: 32 });
    expect(esim.properties.customer_country).toMatchObject({ pattern: '^[A-Za-z]{2}$' });
    const iot = schema('IotCheckoutRequest');
    expect(iot.required).toEqual(expect.arrayContaining(['cart', 'customer_email', 'customer_country', 'customer_first_name', 'customer_last_name', 'data_processing_consent', 'billing_address', 'shipping_address']));
    expect(iot.properties.customer_first_name).toMatchObject({ type: 'string', minLength: 1, pattern: '\\S', maxLength: 100 });
    expect(iot.properties.company_registration_number.anyOf[0]).toMatchObject({ maxLength: 64 });
    expect(iot.properties.shipping_address.properties.line1).toMatchObject({ maxLength: 200 });
    expect(iot.properties.shipping_address.properties.city).toMatchObject({ maxLength: 100 });
    expect(iot.properties.shipping_address.properties.postal_code).toMatchObject({ maxLength: 20 });
    expect(iot.properties.data_processing_consent.properties.agreed).toMatchObject({ const: true });
  });

  it('documents the security schemes, the rate-limit headers, Retry-After and the Idempotency-Key', () => {
    expect(document.components.securitySchemes).toMatchObject({
      developerBearer: { type: 'http', scheme: 'bearer' },
      customerApiKey: { type: 'apiKey', in: 'header', name: 'X-Customer-API-Key' },
      serviceApiKey: { type: 'apiKey', in: 'header', name: 'X-service-API-Key' },
      storefrontServiceToken: { type: 'http', scheme: 'bearer' },
    });
    const rateLimit = ['Burst', 'Minute', 'Hour'].flatMap((window) => [`X-RateLimit-Limit-${window}`, `X-RateLimit-Remaining-${window}`]);
    for (const { path, method, operation } of operations) {
      const areaA = path.startsWith('/developer/api/');
      expect(operation.security, `${method} ${path}`).toEqual(
        areaA
          ? [{ developerBearer: [], customerApiKey: [] }, { developerBearer: [], serviceApiKey: [] }]
          : path.startsWith('/api/v1/') && !path.includes('webhooks')
            ? [{ storefrontServiceToken: [] }]
            : [],
      );
      for (const [status, response] of Object.entries(operation.responses)) {
        const headers = Object.keys(response.headers ?? {});
        if (areaA) expect(headers, `${method} ${path} ${status}`).toEqual(expect.arrayContaining(rateLimit));
        if (areaA && ['200', '202', '400', '404', '409', '422', '502', '503'].includes(status)) {
          for (const name of rateLimit) expect(response.headers[name].required, `${method} ${path} ${status} ${name}`).toBe(true);
        }
        if (status === '429') expect(response.headers['Retry-After'], `${method} ${path}`).toMatchObject({ required: true });
        if (status === '405') expect(response.headers.Allow, `${method} ${path}`).toMatchObject({ required: true });
        // The headers of every answer, kept in one place (scripts/openapi/headers.ts).
        for (const name of Object.keys(commonResponseHeaders)) expect(headers, `${method} ${path} ${status}`).toContain(name);
      }
    }
    for (const path of Object.values(areaBPaths)) {
      expect(operationAt('post', path).parameters!.find((entry) => entry.name === 'Idempotency-Key')).toMatchObject({ in: 'header', required: false });
    }
  });

  it('puts the internal routes (SMS provider receipts, Stripe webhook) under their own tag with their signature headers', () => {
    const receipts = operationAt('post', '/sms-provider/receipts');
    const stripe = operationAt('post', '/api/v1/webhooks/stripe');
    expect([receipts.tags, stripe.tags]).toEqual([['Internal'], ['Internal']]);
    expect(receipts.parameters!.find((entry) => entry.name === 'X-Provider-Signature')).toMatchObject({ in: 'header', required: true });
    expect(stripe.parameters!.find((entry) => entry.name === 'Stripe-Signature')).toMatchObject({ in: 'header', required: true });
    expect(operations.filter(({ operation }) => operation.tags.includes('Internal')).map(({ path }) => path).sort()).toEqual([
      '/api/v1/webhooks/stripe',
      '/sms-provider/receipts',
    ]);
  });

  it('describes the six webhook subscription routes with their codes, the secret only in the create and rotate answers', () => {
    const base = '/developer/api/webhooks/';
    const create = operationAt('post', base);
    const webhookOperations = operations.filter(({ path }) => path.startsWith(base));
    expect(webhookOperations.map(({ method, path }) => `${method} ${path}`).sort()).toEqual([
      'delete /developer/api/webhooks/{webhook_id}/',
      'get /developer/api/webhooks/',
      'get /developer/api/webhooks/{webhook_id}/',
      'get /developer/api/webhooks/{webhook_id}/deliveries/',
      'post /developer/api/webhooks/',
      'post /developer/api/webhooks/{webhook_id}/rotate-secret/',
    ]);
    for (const { operation } of webhookOperations) expect(operation.tags).toEqual(['Webhooks']);
    expect(create.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateWebhookRequest' });
    expect(schema('CreateWebhookRequest').required).toEqual(['url']);
    expect(schema('CreateWebhookRequest').properties.events).toMatchObject({ type: 'array', minItems: 1, items: { enum: [...eventTypes] } });
    expect(schema('CreateWebhookRequest').properties.description.anyOf[0]).toMatchObject({ type: 'string', maxLength: 200 });
    expect(create.responses[201].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/WebhookSubscriptionWithSecret' });
    expect(codesOf(create, 400)).toEqual(['invalid_json', 'invalid_request', 'invalid_webhook_url', 'invalid_webhook_events', 'invalid_webhook_description']);
    expect(codesOf(create, 409)).toEqual(['webhook_limit_reached']);
    expect(codesOf(create, 413)).toEqual(['payload_too_large']);
    expect(codesOf(operationAt('get', base), 404)).toEqual([]);
    for (const [method, path] of [
      ['get', `${base}{webhook_id}/`],
      ['delete', `${base}{webhook_id}/`],
      ['post', `${base}{webhook_id}/rotate-secret/`],
      ['get', `${base}{webhook_id}/deliveries/`],
    ] as const) {
      const operation = operationAt(method, path);
      expect(codesOf(operation, 404), `${method} ${path}`).toEqual(['webhook_not_found']);
      expect(operation.parameters!.find((entry) => entry.name === 'webhook_id'), path).toMatchObject({ in: 'path', required: true, schema: { pattern: '^wh_[0-9a-f]{24}$' } });
    }
    // The secret: in the create and rotate answers (schema and example), in no other.
    const withSecret = webhookOperations.filter(({ operation }) => JSON.stringify(Object.values(operation.responses)[0]).includes('whsec_'));
    expect(withSecret.map(({ method, path }) => `${method} ${path}`).sort()).toEqual(['post /developer/api/webhooks/', 'post /developer/api/webhooks/{webhook_id}/rotate-secret/']);
    expect(schema('WebhookSubscription').properties.secret).toBeUndefined();
    expect(schema('WebhookSubscriptionWithSecret').required).toContain('secret');
  });

  it('describes the five lifecycle events as webhooks with their payload schemas and the Standard Webhooks headers', () => {
    expect(Object.keys(document.webhooks)).toEqual(['deliveryReceipt', ...eventTypes]);
    for (const type of eventTypes) {
      const webhook = document.webhooks[type].post;
      const body = webhook.requestBody.content['application/json'];
      const payload = schema(body.schema.$ref.replace('#/components/schemas/', ''));
      expect(payload, type).toMatchObject({ type: 'object', required: ['id', 'type', 'timestamp', 'data'], additionalProperties: false });
      expect(payload.properties.type, type).toEqual({ const: type });
      expect(body.example.type, type).toBe(type);
      expect(webhook.parameters.map((parameter: { name: string; required: boolean }) => [parameter.name, parameter.required]), type).toEqual([
        ['webhook-id', true],
        ['webhook-timestamp', true],
        ['webhook-signature', true],
      ]);
    }
    expect(schema('LineActivatedEvent').properties.data).toEqual({ $ref: '#/components/schemas/Sim' });
    expect(schema('LineSuspendedEvent').properties.data).toEqual({ $ref: '#/components/schemas/Sim' });
    expect(Object.keys(schema('UsageUpdatedData').properties)).toEqual(['iccid', 'usage', 'cost']);
    expect(schema('IdentityRotatedData').properties.action.enum).toEqual(['issued', 'revoked']);
    expect(schema('IdentityVerifiedData').properties.action.enum).toEqual(['verified']);
    // The examples are valid payloads.
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(document, 'doc');
    for (const type of eventTypes) {
      const body = document.webhooks[type].post.requestBody.content['application/json'];
      const validate = ajv.compile({ $ref: `doc${body.schema.$ref}` });
      expect(validate(body.example), `${type}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  });

  it('npm run docs says when nothing changed and leaves docs/openapi.json alone', async () => {
    const before = statSync(openApiPath).mtimeMs;
    const { stdout } = await promisify(execFile)('npm', ['run', '--silent', 'docs'], { cwd: root });
    expect(stdout).toBe(
      [
        'README.md route table already current: nothing changed',
        'docs/openapi.json already current: nothing changed',
        'build/reference/ written (static reference page: open build/reference/index.html)',
        '',
      ].join('\n'),
    );
    expect(statSync(openApiPath).mtimeMs).toBe(before);
  }, 120_000);
});
