/**
 * The one error type of the service. Every error response of both areas is rendered from it
 * as `{ "detail": "...", "code": "..." }` with `Content-Type: application/json`.
 *
 * `extra` adds fields to the body (for example `retry_after_seconds` on a 429) and `headers`
 * adds response headers (for example `Retry-After`).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

/** True when `value` is an ApiError (also across module copies in tests). */
export const isApiError = (value: unknown): value is ApiError =>
  value instanceof ApiError ||
  (typeof value === 'object' && value !== null && (value as { name?: unknown }).name === 'ApiError');
