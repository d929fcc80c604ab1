/**
 * Event fixtures built by the same code as the local gateway and pollers: the API Gateway
 * event of a request to a route (with its area's demo credentials) and the SQSEvent of a
 * queue message. Used by local/make-event.ts and the fixture tests.
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, SQSEvent } from 'aws-lambda';
import type { RouteDefinition } from '../shared/topology/routes';
import type { QueueDefinition } from '../shared/topology/queues';
import { buildApiGatewayEvent } from './api-gateway-event';
import { UsageError } from './cli-options';
import type { DemoCredentials } from './demo-credentials';
import { demoSecrets } from './demo-config';
import { resolveRoute } from './gateway';
import { receiptSignature } from './sms-simulator';
import { buildSqsEvent, localQueueArn } from './sqs-event';

/** How to build a route's event. */
export interface RouteEventOptions {
  /** The request path (default: the route path with sample values for its parameters). */
  path?: string;
  /** Query string without `?`. */
  query?: string;
  body?: string;
  /** Extra headers, `Name: value`. */
  headers?: string[];
  /** Leave out the area's credentials. */
  noAuth?: boolean;
  credentials?: DemoCredentials;
  /** Fixed time (epoch ms) for reproducible output. */
  now?: number;
}

const placeholderCredentials: Required<DemoCredentials> = {
  bearerToken: 'bearer_demo01_placeholder',
  apiKey: 'devkey_demo01_placeholder',
  simId: 1001,
  iccid: '8944500000000001001',
};

/** A request path for a route: `{sim}` becomes a SIM id (an ICCID on SMS routes), `{proxy+}` a sample rest of path. */
export const samplePath = (route: RouteDefinition, credentials: DemoCredentials = {}): string => {
  const demo = { ...placeholderCredentials, ...credentials };
  const sms = /\{sim\}\/sms/.test(route.path);
  const path = route.path
    .replace('{sim}', sms ? demo.iccid : String(demo.simId))
    .replace(/\{proxy\+\}/, 'no-such-path')
    .replace(/\{[^}]+\}/g, 'example');
  return path;
};

const stripeSignature = (body: string, secret: string, now: number): string => {
  const timestamp = Math.floor(now / 1000);
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
};

/**
 * A Stripe webhook event with its Stripe-Signature made again for `now` with `secret`, as
 * Stripe signs at delivery time: a signature is only valid for five minutes, so a committed
 * fixture's signature has always expired. The body is kept byte for byte; both header maps
 * get the new value. An event without a Stripe-Signature header (a fixture made with
 * --no-auth) is returned as it is.
 */
export const withFreshStripeSignature = (event: APIGatewayProxyEvent, secret: string, now: number = Date.now()): APIGatewayProxyEvent => {
  const name = Object.keys(event.headers ?? {}).find((header) => header.toLowerCase() === 'stripe-signature');
  if (name === undefined) return event;
  const body = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8').toString('utf8');
  const signature = stripeSignature(body, secret, now);
  const multiName = Object.keys(event.multiValueHeaders ?? {}).find((header) => header.toLowerCase() === 'stripe-signature');
  return {
    ...event,
    headers: { ...event.headers, [name]: signature },
    ...(multiName !== undefined ? { multiValueHeaders: { ...event.multiValueHeaders, [multiName]: [signature] } } : {}),
  };
};

/** The credentials a request to this route carries, as raw header pairs. */
const authHeaders = (route: RouteDefinition, body: string, credentials: DemoCredentials, now: number): string[] => {
  const demo = { ...placeholderCredentials, ...credentials };
  if (route.area === 'developer') return ['Authorization', `Bearer ${demo.bearerToken}`, 'X-Customer-API-Key', demo.apiKey];
  if (route.area === 'provider') return ['X-Provider-Signature', receiptSignature(body, demoSecrets.SMS_RECEIPT_SECRET)];
  if (route.path.includes('/webhooks/stripe')) return ['Stripe-Signature', stripeSignature(body, demoSecrets.STRIPE_WEBHOOK_SECRET, now)];
  if (route.path.startsWith('/api/')) return ['Authorization', `Bearer ${demoSecrets.STOREFRONT_SERVICE_TOKEN}`];
  return [];
};

/** The API Gateway (REST, payload 1.0) event a request to `route` produces in the local gateway. */
export const makeRouteEvent = (route: RouteDefinition, options: RouteEventOptions = {}): APIGatewayProxyEvent => {
  const now = options.now ?? Date.now();
  const method = route.method === 'ANY' ? 'GET' : route.method;
  const path = options.path ?? samplePath(route, options.credentials);
  const body = options.body ?? (route.json ? '{}' : '');
  const rawHeaders = ['Host', '127.0.0.1:3000', 'User-Agent', 'curl/8.5.0', 'Accept', '*/*'];
  if (body !== '') rawHeaders.push('Content-Type', 'application/json');
  if (!options.noAuth) rawHeaders.push(...authHeaders(route, body, options.credentials ?? {}, now));
  for (const header of options.headers ?? []) {
    const colon = header.indexOf(':');
    if (colon < 1) throw new UsageError(`--header needs "Name: value", not ${JSON.stringify(header)}`);
    rawHeaders.push(header.slice(0, colon).trim(), header.slice(colon + 1).trim());
  }
  const resolved = resolveRoute([route], method, path);
  if (!resolved) throw new UsageError(`${method} ${path} does not reach route ${route.name} (${route.path})`);
  return buildApiGatewayEvent(
    resolved.match,
    { method, path, rawQuery: options.query ?? '', rawHeaders, body: Buffer.from(body, 'utf8'), sourceIp: '127.0.0.1', localPort: 3000 },
    { now },
  );
};

/** The SQSEvent a queue's consumer receives for one message with this body. */
export const makeQueueEvent = (queue: QueueDefinition, body: string, now: number = Date.now()): SQSEvent =>
  buildSqsEvent(
    [
      {
        MessageId: randomUUID(),
        ReceiptHandle: Buffer.from(randomUUID()).toString('base64'),
        Body: body,
        MD5OfBody: createHash('md5').update(body).digest('hex'),
        Attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: String(now),
          SenderId: '000000000000',
          ApproximateFirstReceiveTimestamp: String(now),
        },
      },
    ],
    localQueueArn(queue.name),
  );

