import { randomBytes, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { localAccountId } from './lambda-context';

/** Stage name of the local API (requestContext.stage). */
export const localStage = 'local';
/** API id of the local API (requestContext.apiId). */
export const localApiId = 'localapi01';

/** An HTTP request as the local gateway received it. */
export interface HttpRequestParts {
  method: string;
  /** The path as sent, without the query string (still percent-encoded). */
  path: string;
  /** The query string without `?`; empty when there is none. */
  rawQuery: string;
  /** Header names and values as sent, alternating (Node's `rawHeaders`). */
  rawHeaders: string[];
  body: Buffer;
  sourceIp: string;
  /** Port the request came in on (X-Forwarded-Port). */
  localPort: number;
  /** e.g. `HTTP/1.1`. */
  protocol?: string;
}

/** The API Gateway resource a request reached. */
export interface ResourceMatch {
  /** The resource path of the route table entry, e.g. `/developer/api/sims/{sim}`. */
  resource: string;
  pathParameters: Record<string, string> | null;
}

const textTypes = /^text\/|json|xml|javascript|x-www-form-urlencoded|graphql|yaml|csv/;

const isValidUtf8 = (bytes: Buffer): boolean => {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
};

/**
 * How API Gateway passes a body to the Lambda proxy integration: null when empty, a string
 * for text media types (and for an untyped body that is valid UTF-8), else base64 with
 * `isBase64Encoded`, as API Gateway does for media types it treats as binary.
 */
export const encodeBody = (body: Buffer, contentType: string | undefined): { body: string | null; isBase64Encoded: boolean } => {
  if (body.length === 0) return { body: null, isBase64Encoded: false };
  const type = contentType?.toLowerCase().split(';')[0]?.trim();
  const text = type ? textTypes.test(type) : isValidUtf8(body);
  return text ? { body: body.toString('utf8'), isBase64Encoded: false } : { body: body.toString('base64'), isBase64Encoded: true };
};

const groupHeaders = (rawHeaders: string[]): Map<string, { name: string; values: string[] }> => {
  const grouped = new Map<string, { name: string; values: string[] }>();
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!;
    const value = rawHeaders[index + 1]!;
    const entry = grouped.get(name.toLowerCase());
    if (entry) entry.values.push(value);
    else grouped.set(name.toLowerCase(), { name, values: [value] });
  }
  return grouped;
};

const traceId = (now: number): string =>
  `Root=1-${Math.floor(now / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** API Gateway's requestTime format: `22/Nov/2026:10:00:00 +0000`. */
const requestTime = (now: number): string => {
  const date = new Date(now);
  const pad = (value: number) => String(value).padStart(2, '0');
  return (
    `${pad(date.getUTCDate())}/${months[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`
  );
};

/**
 * A plain object with these entries as own enumerable properties, the way `JSON.parse`
 * builds the event in Lambda: any name is a key, so `__proto__`, `constructor` or
 * `toString` from a client are ordinary entries (an assignment `object[name] = value` would
 * change the prototype for `__proto__` and read an inherited member for the others).
 */
export const ownEntries = <T>(entries: Iterable<readonly [string, T]>): Record<string, T> => {
  const object: Record<string, T> = {};
  for (const [name, value] of entries) Object.defineProperty(object, name, { value, writable: true, enumerable: true, configurable: true });
  return object;
};

/**
 * The query string as API Gateway passes it: last value per name, every value per name,
 * both null when there is no query string. Values are URL-decoded (`+` is a space). Any
 * parameter name is safe (see ownEntries).
 */
export const queryParameters = (
  rawQuery: string,
): Pick<APIGatewayProxyEvent, 'queryStringParameters' | 'multiValueQueryStringParameters'> => {
  if (rawQuery === '') return { queryStringParameters: null, multiValueQueryStringParameters: null };
  const grouped = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(rawQuery)) {
    const values = grouped.get(name);
    if (values) values.push(value);
    else grouped.set(name, [value]);
  }
  if (grouped.size === 0) return { queryStringParameters: null, multiValueQueryStringParameters: null };
  return {
    queryStringParameters: ownEntries([...grouped].map(([name, values]) => [name, values[values.length - 1]!] as const)),
    multiValueQueryStringParameters: ownEntries(grouped),
  };
};

/**
 * Builds the event that API Gateway's REST API sends to a Lambda proxy integration (payload
 * format 1.0) for a request that reached `match`: headers and query string both single- and
 * multi-valued, path parameters (null when none), the request context, and the body as
 * API Gateway encodes it. API Gateway's own X-Forwarded-* and X-Amzn-Trace-Id headers are
 * added when the client did not send them.
 */
export const buildApiGatewayEvent = (
  match: ResourceMatch,
  request: HttpRequestParts,
  options: { requestId?: string; now?: number } = {},
): APIGatewayProxyEvent => {
  const now = options.now ?? Date.now();
  const requestId = options.requestId ?? randomUUID();
  const grouped = groupHeaders(request.rawHeaders);
  const addDefault = (name: string, value: string) => {
    if (!grouped.has(name.toLowerCase())) grouped.set(name.toLowerCase(), { name, values: [value] });
  };
  addDefault('X-Forwarded-For', request.sourceIp);
  addDefault('X-Forwarded-Port', String(request.localPort));
  addDefault('X-Forwarded-Proto', 'http');
  addDefault('X-Amzn-Trace-Id', traceId(now));
  const headers = ownEntries([...grouped.values()].map(({ name, values }) => [name, values[values.length - 1]!] as const));
  const multiValueHeaders = ownEntries([...grouped.values()].map(({ name, values }) => [name, values] as const));
  const contentType = grouped.get('content-type')?.values[0];
  const userAgent = grouped.get('user-agent')?.values[0] ?? null;
  const host = grouped.get('host')?.values[0] ?? `127.0.0.1:${request.localPort}`;
  const { body, isBase64Encoded } = encodeBody(request.body, contentType);
  return {
    resource: match.resource,
    path: request.path,
    httpMethod: request.method,
    headers,
    multiValueHeaders,
    ...queryParameters(request.rawQuery),
    pathParameters: match.pathParameters && ownEntries(Object.entries(match.pathParameters)),
    stageVariables: null,
    requestContext: {
      resourceId: 'local',
      resourcePath: match.resource,
      httpMethod: request.method,
      extendedRequestId: randomBytes(8).toString('base64url'),
      requestTime: requestTime(now),
      path: `/${localStage}${request.path}`,
      accountId: localAccountId,
      protocol: request.protocol ?? 'HTTP/1.1',
      stage: localStage,
      domainPrefix: host.split('.')[0]!.split(':')[0]!,
      requestTimeEpoch: now,
      requestId,
      identity: {
        cognitoIdentityPoolId: null,
        accountId: null,
        cognitoIdentityId: null,
        caller: null,
        sourceIp: request.sourceIp,
        principalOrgId: null,
        accessKey: null,
        cognitoAuthenticationType: null,
        cognitoAuthenticationProvider: null,
        userArn: null,
        userAgent,
        user: null,
        apiKey: null,
        apiKeyId: null,
        clientCert: null,
      },
      domainName: host,
      apiId: localApiId,
      authorizer: null,
    },
    body,
    isBase64Encoded,
  };
};
