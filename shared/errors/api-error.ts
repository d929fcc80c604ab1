import { boundedDetail } from './detail-text';

/**
 * The one error type of the service. Every error response of both areas is rendered from it
 * as `{ "detail": "...", "code": "..." }` with `Content-Type: application/json`. It lives in
 * shared/errors/, which imports nothing of the service, so that the domain (which throws it)
 * and shared/http/ (which renders it) both use it without either importing the other.
 *
 * `extra` adds fields to the body (for example `retry_after_seconds` on a 429) and `headers`
 * adds response headers (for example `Retry-After`). A detail longer than 512 characters is
 * cut (./detail-text.ts): a detail that quotes input quotes it with `quoteInput`.
 *
 * `statusCode` and `expose` are the http-errors fields that @middy/http-error-handler reads
 * (shared/http/envelope.ts): every ApiError is an answer the service means, so each is exposed, a 502
 * `stripe_error` as much as a 404; anything else is answered as a generic 500.
 */
export class ApiError extends Error {
  readonly detail: string;
  readonly statusCode: number;
  readonly expose = true;

  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(boundedDetail(detail));
    this.detail = this.message;
    this.statusCode = status;
    this.name = 'ApiError';
  }
}

/** True when `value` is an ApiError (also across module copies in tests). */
export const isApiError = (value: unknown): value is ApiError =>
  value instanceof ApiError ||
  (typeof value === 'object' && value !== null && (value as { name?: unknown }).name === 'ApiError');
