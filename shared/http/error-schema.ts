import * as v from 'valibot';
import { maxDetailLength, maxQuotedCharacters } from '../errors/detail-text';

/**
 * The error body of both areas as a valibot schema: the one source of its JSON Schema in
 * docs/openapi.json (scripts/openapi/) and of the response check in the HTTP tests. Handlers
 * render it from ApiError (./responses.ts); this module is imported as a type only by them,
 * so the deployed bundles do not carry it.
 */
export const errorBodySchema = v.pipe(
  v.strictObject({
    detail: v.pipe(
      v.string(),
      v.maxLength(maxDetailLength),
      v.description(
        `Human-readable explanation; for a 400 it names the offending field. At most ${maxDetailLength} characters; a value of the request is quoted with at most ${maxQuotedCharacters} of its characters.`,
      ),
    ),
    code: v.pipe(v.string(), v.description('Machine-readable error code (snake_case).')),
  }),
  v.description('Every error answer: `{detail, code}` with Content-Type application/json.'),
);

/**
 * The 429 body: the error body plus, on Area A's own rate limits, the wait in whole seconds
 * (API Gateway's stage throttling answers rate_limited without it).
 */
export const rateLimitedBodySchema = v.pipe(
  v.strictObject({
    ...errorBodySchema.entries,
    retry_after_seconds: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(1),
        v.description(
          "Seconds until this request would be admitted; the same value as the Retry-After header. On every rate_limited_* answer; absent on API Gateway's own rate_limited.",
        ),
      ),
    ),
  }),
  v.description('A rate-limit refusal: the error body plus retry_after_seconds.'),
);

/** An error body. */
export type ErrorBody = v.InferOutput<typeof errorBodySchema>;
