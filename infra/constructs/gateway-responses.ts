import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';

/** One customised API Gateway answer: its status (unset: keep the one of the error) and body. */
export interface GatewayAnswer {
  type: ResponseType;
  /** Unset for DEFAULT_4XX / DEFAULT_5XX, which cover several statuses. */
  statusCode?: string;
  code: string;
  detail: string;
  /** Extra static headers. */
  headers?: Record<string, string>;
}

/** An answer that several response types give alike: all of a GatewayAnswer but its type. */
type SharedAnswer = Omit<GatewayAnswer, 'type'>;

const notFound: SharedAnswer = { statusCode: '404', code: 'not_found', detail: 'Not found.' };
const internalError: SharedAnswer = { statusCode: '500', code: 'internal_error', detail: 'An internal error occurred.' };
const accessDenied: SharedAnswer = { statusCode: '403', code: 'access_denied', detail: 'Access denied.' };
/** Throttling answers differ only in how long they ask the client to wait. */
const rateLimited = (retryAfterSeconds: number): SharedAnswer => ({
  statusCode: '429',
  code: 'rate_limited',
  detail: 'Too many requests; retry later.',
  headers: { 'Retry-After': String(retryAfterSeconds) },
});

/**
 * What API Gateway answers by itself (before or instead of a function), in the service's
 * error shape. The defaults are `{"message": ...}` bodies; these are `{"detail", "code"}`
 * with `Content-Type: application/json` like every function answer. Every response type
 * API Gateway has is listed, and the two DEFAULT_* types cover any type added later.
 */
export const gatewayAnswers: GatewayAnswer[] = [
  { type: ResponseType.DEFAULT_4XX, code: 'bad_request', detail: 'The request was refused.' },
  { type: ResponseType.DEFAULT_5XX, code: 'internal_error', detail: 'An internal error occurred.' },
  // A path with no resource, or a resource without the method: API Gateway's "Missing
  // Authentication Token". With the fallback ANY methods this is rare, but never HTML/403.
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, ...notFound },
  { type: ResponseType.RESOURCE_NOT_FOUND, ...notFound },
  { type: ResponseType.THROTTLED, ...rateLimited(1) },
  { type: ResponseType.QUOTA_EXCEEDED, ...rateLimited(60) },
  { type: ResponseType.REQUEST_TOO_LARGE, statusCode: '413', code: 'payload_too_large', detail: 'The request is too large.' },
  { type: ResponseType.INTEGRATION_TIMEOUT, statusCode: '504', code: 'gateway_timeout', detail: 'The service did not answer in time.' },
  { type: ResponseType.INTEGRATION_FAILURE, statusCode: '502', code: 'bad_gateway', detail: 'The service failed to answer.' },
  { type: ResponseType.API_CONFIGURATION_ERROR, ...internalError },
  { type: ResponseType.AUTHORIZER_FAILURE, ...internalError },
  { type: ResponseType.AUTHORIZER_CONFIGURATION_ERROR, ...internalError },
  { type: ResponseType.ACCESS_DENIED, ...accessDenied },
  { type: ResponseType.WAF_FILTERED, ...accessDenied },
  { type: ResponseType.UNAUTHORIZED, statusCode: '401', code: 'unauthorized', detail: 'Authentication is required.' },
  { type: ResponseType.INVALID_API_KEY, ...accessDenied },
  { type: ResponseType.INVALID_SIGNATURE, ...accessDenied },
  { type: ResponseType.EXPIRED_TOKEN, ...accessDenied },
  { type: ResponseType.BAD_REQUEST_BODY, statusCode: '400', code: 'invalid_request', detail: 'The request body is invalid.' },
  {
    type: ResponseType.BAD_REQUEST_PARAMETERS,
    statusCode: '400',
    code: 'invalid_request',
    detail: 'The request parameters are invalid.',
  },
  {
    type: ResponseType.UNSUPPORTED_MEDIA_TYPE,
    statusCode: '415',
    code: 'unsupported_media_type',
    detail: 'The content type of the request is not supported.',
  },
];

/** The JSON body of a gateway answer (no template language: API Gateway sends it as is). */
export const gatewayAnswerBody = (answer: GatewayAnswer): string =>
  JSON.stringify({ detail: answer.detail, code: answer.code });

/**
 * Adds every gateway answer to `api`. Each carries `X-Request-Id`, mapped from
 * `context.requestId` (a mapping, not a quoted literal), like every function answer: the
 * request id by which its access-log line and any function log lines are found.
 */
export const addGatewayAnswers = (api: RestApi): void => {
  for (const answer of gatewayAnswers) {
    const headers: Record<string, string> = { 'Content-Type': "'application/json'", 'X-Request-Id': 'context.requestId' };
    for (const [name, value] of Object.entries(answer.headers ?? {})) headers[name] = `'${value}'`;
    api.addGatewayResponse(`Gateway${answer.type.responseType}`, {
      type: answer.type,
      statusCode: answer.statusCode,
      responseHeaders: headers,
      templates: { 'application/json': gatewayAnswerBody(answer) },
    });
  }
};
