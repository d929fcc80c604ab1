import type * as v from 'valibot';
import { esimCheckoutSchema, iotCheckoutSchema, physicalCheckoutSchema } from '../../shared/checkout/schemas';
import { checkoutResponseSchema } from '../../shared/checkout/response-schema';
import { stripeEventSchema, webhookAnswerSchema } from '../../shared/fulfilment/webhook-schema';
import { errorBodySchema, rateLimitedBodySchema } from '../../shared/http/error-schema';
import { dataBundleSchema, simListSchema, simObjectSchema } from '../../shared/sims/sim-schema';
import {
  deliveryReceiptSchema,
  providerReceiptSchema,
  receiptAnswerSchema,
  smsMessageStateSchema,
  smsSubmissionSchema,
} from '../../shared/sms/sms-schema';
import { smsBodySchema } from '../../shared/sms/submission';
import { SimActionFailure, SimActionList, SimActionObject, SimActionRequest } from '../../shared/sim-actions/schemas';
import { routes, type RouteDefinition } from '../../shared/topology/routes';
import {
  ActionCompletedEvent,
  ActionFailedEvent,
  IdentityRotatedData,
  IdentityRotatedEvent,
  IdentityVerifiedData,
  IdentityVerifiedEvent,
  LineActivatedEvent,
  LineCancelledEvent,
  LineResumedEvent,
  LineSuspendedEvent,
  SmsReceivedData,
  SmsReceivedEvent,
  UsageUpdatedData,
  UsageUpdatedEvent,
} from '../../shared/webhooks/event-schemas';
import {
  CreateWebhookRequest,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookSubscription,
  WebhookSubscriptionList,
  WebhookSubscriptionWithSecret,
} from '../../shared/webhooks/schemas';
import { bodyCode, errorCodes, type ErrorCode, type ErrorCodeName } from './error-codes';
import { allowHeader, commonResponseHeaders, rateLimitHeaders, retryAfterHeader, type HeaderObject } from './headers';
import { componentRef, componentSchemas, jsonSchemaOf, queryParameterSchemaOf } from './json-schema';
import { operations, tags, type OperationSpec, type ParameterSpec } from './operations';
import { deliveryReceiptWebhook, lifecycleEventWebhooks } from './webhooks';

/**
 * Builds docs/openapi.json (OpenAPI 3.1) from the code: the route table gives every path and
 * method, ./operations.ts the words per route, the valibot schemas (request validators and
 * the response schemas the handlers' types come from) the JSON Schemas, ./error-codes.ts the
 * error codes and ./headers.ts the response headers. `npm run docs` writes it;
 * test/docs/openapi.test.ts fails when the committed file differs from this.
 */

/** The schemas under components/schemas, by name; the operations refer to them by these names. */
export const namedSchemas: Record<string, v.GenericSchema> = {
  Error: errorBodySchema,
  RateLimitedError: rateLimitedBodySchema,
  Sim: simObjectSchema,
  DataBundle: dataBundleSchema,
  SimList: simListSchema,
  SmsRequest: smsBodySchema,
  SmsSubmission: smsSubmissionSchema,
  SmsMessageState: smsMessageStateSchema,
  DeliveryReceipt: deliveryReceiptSchema,
  EsimCheckoutRequest: esimCheckoutSchema,
  PhysicalCheckoutRequest: physicalCheckoutSchema,
  IotCheckoutRequest: iotCheckoutSchema,
  CheckoutResponse: checkoutResponseSchema,
  ProviderReceipt: providerReceiptSchema,
  ProviderReceiptAnswer: receiptAnswerSchema,
  StripeEvent: stripeEventSchema,
  StripeWebhookAnswer: webhookAnswerSchema,
  CreateWebhookRequest,
  WebhookSubscription,
  WebhookSubscriptionWithSecret,
  WebhookSubscriptionList,
  WebhookDelivery,
  WebhookDeliveryList,
  LineActivatedEvent,
  LineSuspendedEvent,
  LineResumedEvent,
  LineCancelledEvent,
  UsageUpdatedEvent,
  UsageUpdatedData,
  IdentityRotatedEvent,
  IdentityRotatedData,
  IdentityVerifiedEvent,
  IdentityVerifiedData,
  SmsReceivedEvent,
  SmsReceivedData,
  ActionCompletedEvent,
  ActionFailedEvent,
  SimAction: SimActionObject,
  SimActionFailure,
  SimActionRequest,
  SimActionList,
};

/** Which authentication and shared answers an operation gets. */
type Audience = 'developer' | 'storefront' | 'internal';

const audienceOf = (route: RouteDefinition, spec: OperationSpec): Audience =>
  spec.tag === 'Internal' ? 'internal' : route.area === 'developer' ? 'developer' : 'storefront';

/** Codes every operation of an audience may answer, beyond its own. */
const audienceErrors: Record<Audience, ErrorCodeName[]> = {
  developer: [
    'bearer_token_required',
    'invalid_bearer_token',
    'user_inactive',
    'api_key_required',
    'invalid_api_key',
    'developer_access_required',
    'tenant_scope_mismatch',
    'method_not_allowed',
    'rate_limited_burst',
    'rate_limited_minute',
    'rate_limited_hour',
    'rate_limited',
    'internal_error',
  ],
  storefront: ['service_token_required', 'invalid_service_token', 'method_not_allowed', 'rate_limited', 'internal_error'],
  internal: ['method_not_allowed', 'rate_limited', 'internal_error'],
};

const securityOf: Record<Audience, Record<string, string[]>[]> = {
  developer: [
    { developerBearer: [], customerApiKey: [] },
    { developerBearer: [], serviceApiKey: [] },
  ],
  storefront: [{ storefrontServiceToken: [] }],
  internal: [],
};

/** Statuses whose Area A answers come before the rate limit (or outside the function) and so lack its headers. */
const beforeRateLimit = new Set([401, 403, 413, 429, 500]);

/** The headers of one answer: the common ones, then the audience's and the status's own. */
const headersFor = (audience: Audience, status: number, extra: Record<string, HeaderObject> = {}): Record<string, HeaderObject> => ({
  ...commonResponseHeaders,
  ...(audience === 'developer' ? rateLimitHeaders(!beforeRateLimit.has(status)) : {}),
  ...(status === 429 ? retryAfterHeader : {}),
  ...(status === 405 ? allowHeader : {}),
  ...extra,
});

const reasons: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authenticated',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Payload too large',
  422: 'Unprocessable',
  429: 'Too many requests',
  500: 'Internal error',
  502: 'Upstream failure',
  503: 'Not configured',
};

/** The response of one error status: the error body with its codes as an enum, one example per code. */
const errorResponse = (audience: Audience, status: number, names: ErrorCodeName[]) => {
  const codes = names.map(bodyCode);
  const base = status === 429 ? 'RateLimitedError' : 'Error';
  return {
    description: `${reasons[status] ?? 'Error'}: ${codes.map((code) => `\`${code}\``).join(', ')}.`,
    headers: headersFor(audience, status),
    content: {
      'application/json': {
        schema: { allOf: [{ $ref: componentRef(base) }, { type: 'object', properties: { code: { type: 'string', enum: codes } } }] },
        examples: Object.fromEntries(
          names.map((name) => {
            const entry = errorCodes[name] as ErrorCode;
            const value: Record<string, unknown> = { detail: entry.detail, code: bodyCode(name) };
            if (status === 429 && name !== 'rate_limited') value.retry_after_seconds = 3;
            return [name, { summary: entry.when, value }];
          }),
        ),
      },
    },
  };
};

const parameterOf = (spec: ParameterSpec) => {
  const convert = spec.in === 'query' ? queryParameterSchemaOf : jsonSchemaOf;
  const schema = '~standard' in spec.schema ? convert(spec.schema as v.GenericSchema) : spec.schema;
  const { description: schemaDescription, ...rest } = schema as { description?: string };
  return {
    name: spec.name,
    in: spec.in,
    ...(spec.description ?? schemaDescription ? { description: spec.description ?? schemaDescription } : {}),
    required: spec.in === 'path' ? true : (spec.required ?? false),
    schema: rest,
    ...(spec.example === undefined ? {} : { example: spec.example }),
  };
};

/** The route table's path with its variables renamed as the operation names them. */
export const documentPath = (route: RouteDefinition, spec: OperationSpec): string =>
  route.path.replace(/\{([^}+]+)\}/g, (_match, name: string) => `{${spec.pathParameters?.[name]?.name ?? name}}`);

const parametersOf = (route: RouteDefinition, spec: OperationSpec) => {
  const pathNames = [...route.path.matchAll(/\{([^}+]+)\}/g)].map((match) => match[1]!);
  const path = pathNames.map((name) => {
    const given = spec.pathParameters?.[name];
    if (!given) throw new Error(`route ${route.name}: path variable {${name}} has no entry in pathParameters (scripts/openapi/operations.ts)`);
    return parameterOf({ name: given.name, in: 'path', schema: given.schema, example: given.example });
  });
  const query = Object.entries(spec.query?.entries ?? {}).map(([name, schema]) =>
    parameterOf({ name, in: 'query', required: schema.type !== 'optional', schema }),
  );
  return [...path, ...query, ...(spec.headers ?? []).map(parameterOf)];
};

const camelCase = (name: string): string => name.replace(/-([a-z])/g, (_match, letter: string) => letter.toUpperCase());

/** One operation of the document. */
const operationOf = (route: RouteDefinition, spec: OperationSpec) => {
  const audience = audienceOf(route, spec);
  const names = [...new Set([...spec.errors, ...audienceErrors[audience], ...(spec.takesBody ? (['payload_too_large'] as const) : [])])];
  const byStatus = new Map<number, ErrorCodeName[]>();
  for (const name of names) {
    const status = (errorCodes[name] as ErrorCode).status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), name]);
  }
  const parameters = parametersOf(route, spec);
  const responses: Record<string, unknown> = {
    [spec.success.status]: {
      description: spec.success.description,
      headers: headersFor(audience, spec.success.status, spec.success.headers),
      content: { 'application/json': { schema: { $ref: componentRef(spec.success.schema) }, example: spec.success.example } },
    },
  };
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) responses[status] = errorResponse(audience, status, byStatus.get(status)!);
  return {
    operationId: camelCase(route.name),
    tags: [spec.tag],
    summary: spec.summary,
    description: spec.description,
    security: securityOf[audience],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(spec.requestBody
      ? {
          requestBody: {
            required: true,
            ...(spec.requestBody.description ? { description: spec.requestBody.description } : {}),
            content: { 'application/json': { schema: { $ref: componentRef(spec.requestBody.schema) }, example: spec.requestBody.example } },
          },
        }
      : {}),
    responses,
  };
};

/** The OpenAPI 3.1 document, as docs/openapi.json holds it. */
export const buildOpenApiDocument = (version: string) => {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const spec = operations[route.name];
    if (!spec) {
      throw new Error(
        `route ${route.name} (${route.method} ${route.path}) has no operation: add one to scripts/openapi/operations.ts`,
      );
    }
    const path = documentPath(route, spec);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operationOf(route, spec) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'SIM developer API and storefront checkout API',
      version,
      summary: 'Area A: SIMs and SMS for developers. Area B: storefront checkouts.',
      description: [
        'Generated from the code by `npm run docs` (scripts/openapi/): the route table, the request validators and the response schemas the handlers use. The HTTP tests check every answer they receive against this document.',
        '',
        'Area A (`/developer/api/`) needs two credentials on every request: a personal bearer token and a customer-group API key. Every Area A answer after authentication carries the six `X-RateLimit-*` headers; a 429 carries `Retry-After`.',
        '',
        'Area A also manages webhook subscriptions (`/developer/api/webhooks/`) to lifecycle events, delivered signed the Standard Webhooks way: the webhooks `line.activated`, `line.suspended`, `usage.updated`, `identity.rotated`, `identity.verified` (the default set of a subscription) and `sms.received` (a message a SIM sent; chosen explicitly), and `deliveryReceipt`, posted to an SMS\'s callback_url.',
        '',
        'Area B (`/api/v1/`) needs the storefront service token. Checkouts take an optional `Idempotency-Key`.',
        '',
        'Every error is `{"detail": "...", "code": "..."}` with Content-Type application/json; the codes of each status are listed as an enum with an example each.',
      ].join('\n'),
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [
      { url: 'http://127.0.0.1:3000', description: 'The local runtime (`npm start`; PORT changes the port). Areas A and B share one origin.' },
      {
        url: 'https://{restApiId}.execute-api.{region}.amazonaws.com/{stage}',
        description: 'The deployed API Gateway REST API (docs/deploy.md).',
        variables: {
          restApiId: { default: 'abc123defg', description: 'The REST API id printed by the deployment.' },
          region: { default: 'eu-west-2' },
          stage: { default: 'prod' },
        },
      },
    ],
    tags: tags.map((tag) => ({ ...tag })),
    paths,
    webhooks: { deliveryReceipt: deliveryReceiptWebhook, ...lifecycleEventWebhooks },
    components: {
      securitySchemes: {
        developerBearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'bearer_<prefix>_<secret>',
          description: 'Area A, factor 1: the personal developer bearer token.',
        },
        customerApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Customer-API-Key',
          description: 'Area A, factor 2: the customer-group API key `devkey_<prefix>_<secret>`.',
        },
        serviceApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-service-API-Key',
          description: 'Area A, factor 2 under its other accepted name. Both names may be sent only with the same key; different keys, or one name sent twice, are 401 invalid_api_key.',
        },
        storefrontServiceToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'Area B: the shared storefront service token (STOREFRONT_SERVICE_TOKEN).',
        },
      },
      schemas: componentSchemas(namedSchemas),
    },
  };
};
