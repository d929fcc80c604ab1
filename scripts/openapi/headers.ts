/**
 * The response headers docs/openapi.json documents, in one place. `commonResponseHeaders` is
 * added to every response of every operation: a header the service puts on every answer is
 * documented by adding ONE entry there (and the HTTP tests then require it on every answer
 * when it is `required`).
 */

/** An OpenAPI header object. */
export interface HeaderObject {
  description: string;
  required?: boolean;
  schema: Record<string, unknown>;
}

/** Headers on every answer of every operation. */
export const commonResponseHeaders: Record<string, HeaderObject> = {
  'X-Request-Id': {
    description:
      'The request\'s id (API Gateway\'s request id), also the correlation id of every log line of its handling, on the queues and in the consumers (docs/operations.md). Quote it when asking about a request.',
    required: true,
    schema: { type: 'string', format: 'uuid' },
  },
};

const integer = { type: 'integer', minimum: 0 } as const;

/**
 * The six rate-limit headers of Area A (SPEC.md "Rate limits"). `required` on the answers that
 * come after the rate limit (every status but 401/403, which come before it, and 413/500).
 */
export const rateLimitHeaders = (required: boolean): Record<string, HeaderObject> => {
  const header = (description: string): HeaderObject => ({ description, required, schema: integer });
  return {
    'X-RateLimit-Limit-Burst': header('Requests allowed per 10 seconds (10).'),
    'X-RateLimit-Remaining-Burst': header('Requests the next one would find room for in the trailing 10 seconds.'),
    'X-RateLimit-Limit-Minute': header('Requests allowed per minute (60).'),
    'X-RateLimit-Remaining-Minute': header('Requests the next one would find room for in the trailing minute.'),
    'X-RateLimit-Limit-Hour': header('Requests allowed per hour (1500).'),
    'X-RateLimit-Remaining-Hour': header('Requests the next one would find room for in the trailing hour (at most 14 below exact).'),
  };
};

/** Retry-After on every 429. */
export const retryAfterHeader: Record<string, HeaderObject> = {
  'Retry-After': {
    description: 'Whole seconds to wait before retrying (at least 1).',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
};

/** Allow on every 405. */
export const allowHeader: Record<string, HeaderObject> = {
  Allow: { description: 'The methods this path serves, e.g. `GET`.', required: true, schema: { type: 'string' } },
};

/** Idempotent-Replayed on a checkout answered from an earlier request with the same Idempotency-Key. */
export const idempotentReplayedHeader: Record<string, HeaderObject> = {
  'Idempotent-Replayed': {
    description: 'Present (`true`) when this answer replays the first response to the same Idempotency-Key and body.',
    schema: { type: 'string', enum: ['true'] },
  },
};
