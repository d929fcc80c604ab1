import * as v from 'valibot';
import { parseIsoDateTime } from '../time/iso-date-time';
import { codedAnswers, refusalMessage } from '../validation/coded-message';
import { validateWith } from '../validation/validate';
import { simStatuses } from '../vocabulary/fields';

/**
 * A1's query parameters as a valibot schema: the rule the list validates with (through
 * shared/validation/, each message carrying the spec's code and detail) and the source of the
 * parameters in docs/openapi.json (scripts/openapi/, which documents each from the value its
 * string means). Parameters are judged in this order and the first invalid one answers; unknown
 * parameters are ignored.
 */

/** Page size when none is given, and the largest one accepted. */
export const defaultPageSize = 25;
export const maxPageSize = 100;

/** How far back updated_after may reach. */
export const updatedAfterMaxLookbackMs = 31 * 24 * 3_600_000;

const invalidPage = refusalMessage('invalid_page', 'page must be a whole number, 1 or more.');
const invalidPageSize = refusalMessage('invalid_page_size', `page_size must be a whole number from 1 to ${maxPageSize}.`);
const invalidStatus = refusalMessage('invalid_status_filter', `status must be one of: ${simStatuses.join(', ')}.`);
const invalidUpdatedAfter = refusalMessage(
  'invalid_updated_after',
  'updated_after must be an ISO-8601 date-time, such as 2026-11-20T10:00:00+00:00.',
);
const updatedAfterTooOld = refusalMessage('updated_after_range_exceeded', 'updated_after may be at most 31 days in the past.');

/** A whole number from 1 to `max` written in digits only (no sign, point or exponent), as a number; else `message`. */
const wholeNumber = (max: number, message: string, description: string) =>
  v.pipe(
    v.string(message),
    v.digits(message),
    v.transform(Number),
    v.number(message),
    v.integer(message),
    v.minValue(1, message),
    v.maxValue(max, message),
    v.description(description),
  );

/**
 * An ISO-8601 date-time (shared/time/iso-date-time.ts, lenient: no offset is UTC) as epoch
 * milliseconds, at most 31 days before `now`; a future one is allowed (it matches nothing).
 */
const updatedAfter = (now: number) =>
  v.pipe(
    v.string(invalidUpdatedAfter),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const epochMs = parseIsoDateTime(dataset.value);
      if (epochMs !== undefined && !Number.isNaN(epochMs)) return epochMs;
      addIssue({ message: invalidUpdatedAfter });
      return NEVER;
    }),
    v.check((epochMs) => epochMs >= now - updatedAfterMaxLookbackMs, updatedAfterTooOld),
    // What parseIsoDateTime reads, for the document; a JSON Schema format validates nothing here.
    v.metadata({ format: 'date-time' }),
    v.description(
      'Only SIMs updated strictly after this ISO-8601 date-time (Z or an offset; no offset is read as UTC). At most 31 days back (400 updated_after_range_exceeded); malformed: 400 invalid_updated_after.',
    ),
  );

/**
 * `page` (default 1) and `page_size` (default 25, 1 to 100, refused rather than clamped): the
 * paging of A1, which every paged Area A list takes the same way (the SIM actions, issue #33).
 */
export const pagingEntries = {
  page: v.optional(wholeNumber(Number.MAX_SAFE_INTEGER, invalidPage, 'Page number, 1 or more (else 400 invalid_page).'), '1'),
  page_size: v.optional(
    wholeNumber(maxPageSize, invalidPageSize, `Page size, 1 to ${maxPageSize}; refused, not clamped (400 invalid_page_size).`),
    String(defaultPageSize),
  ),
};

/**
 * A1's query parameters at time `now` (API Gateway's `queryStringParameters`, last value per
 * name): page (default 1), page_size (default 25, 1 to 100), status (a SIM status), customer
 * (any string: resolved later, 404 customer_not_found), updated_after (an ISO-8601 date-time,
 * as epoch milliseconds, at most 31 days back).
 */
export const listSimsQuerySchema = (now: number) =>
  v.object({
    ...pagingEntries,
    status: v.optional(v.pipe(v.picklist(simStatuses, invalidStatus), v.description('Only SIMs with this status (else 400 invalid_status_filter).'))),
    customer: v.optional(
      v.pipe(
        v.string(),
        v.description(
          "Exact account name of the key's customer or of a sub-customer: only SIMs that customer owns directly (else 404 customer_not_found).",
        ),
      ),
    ),
    updated_after: v.optional(updatedAfter(now)),
  });

/** A valid A1 query: the output of listSimsQuerySchema. */
export type ListSimsFilters = v.InferOutput<ReturnType<typeof listSimsQuerySchema>>;

/**
 * Validates A1's query string at time `now` against listSimsQuerySchema: 400 invalid_page,
 * invalid_page_size, invalid_status_filter or invalid_updated_after for a malformed value (the
 * first in parameter order answers), 400 updated_after_range_exceeded for an updated_after
 * more than 31 days before now.
 */
export const validateListSimsQuery = (query: Record<string, string | undefined> | null | undefined, now: number): ListSimsFilters =>
  validateWith(listSimsQuerySchema(now), query ?? {}, codedAnswers);
