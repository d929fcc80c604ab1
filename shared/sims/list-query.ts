import * as v from 'valibot';
import { ApiError } from '../http/api-error';
import { parseIsoDateTime } from '../time/iso-date-time';

/** SIM status values (SPEC.md, "SIM status"). */
export const simStatuses = ['active', 'inactive', 'suspended', 'cancelled', 'stock', 'dispatched', 'trial'] as const;

/** Page size when none is given, and the largest one accepted. */
export const defaultPageSize = 25;
export const maxPageSize = 100;

/** How far back updated_after may reach. */
export const updatedAfterMaxLookbackMs = 31 * 24 * 3_600_000;

/** The 400 of each invalid query parameter, by code. */
const invalid = {
  invalid_page: 'page must be a whole number, 1 or more.',
  invalid_page_size: `page_size must be a whole number from 1 to ${maxPageSize}.`,
  invalid_status_filter: `status must be one of: ${simStatuses.join(', ')}.`,
  invalid_updated_after: 'updated_after must be an ISO-8601 date-time, such as 2026-11-20T10:00:00+00:00.',
} as const;

type InvalidCode = keyof typeof invalid;

const wholeNumber = (code: InvalidCode, max: number) =>
  v.pipe(
    v.string(code),
    v.regex(/^\d+$/, code),
    v.transform(Number),
    v.check((value) => Number.isSafeInteger(value) && value >= 1 && value <= max, code),
  );

/**
 * A1's query string (parameters in this order; the first invalid one answers):
 * page (default 1), page_size (default 25, 1 to 100), status (a SIM status),
 * customer (any string: resolved later), updated_after (an ISO-8601 date-time).
 * Unknown parameters are ignored.
 */
export const ListSimsQuery = v.object({
  page: v.optional(wholeNumber('invalid_page', Number.MAX_SAFE_INTEGER), '1'),
  page_size: v.optional(wholeNumber('invalid_page_size', maxPageSize), String(defaultPageSize)),
  status: v.optional(v.picklist(simStatuses, 'invalid_status_filter')),
  customer: v.optional(v.string()),
  updated_after: v.optional(
    v.pipe(
      v.string('invalid_updated_after'),
      v.transform(parseIsoDateTime),
      v.number('invalid_updated_after'),
    ),
  ),
});

/** A valid A1 query, updated_after as epoch milliseconds. */
export type ListSimsFilters = v.InferOutput<typeof ListSimsQuery>;

/**
 * Validates A1's query string parameters (API Gateway's `queryStringParameters`, last value
 * per name) at time `now`: 400 invalid_page, invalid_page_size, invalid_status_filter or
 * invalid_updated_after for a malformed value, 400 updated_after_range_exceeded for an
 * updated_after more than 31 days before now (a future one is allowed and matches nothing).
 */
export const parseListSimsQuery = (query: Record<string, string | undefined> | null | undefined, now: number): ListSimsFilters => {
  const given = Object.fromEntries(Object.entries(query ?? {}).filter(([, value]) => value !== undefined));
  const parsed = v.safeParse(ListSimsQuery, given);
  if (!parsed.success) {
    const code = parsed.issues[0].message as InvalidCode;
    throw new ApiError(400, code, invalid[code] ?? 'The query string is invalid.');
  }
  const filters = parsed.output;
  if (filters.updated_after !== undefined && filters.updated_after < now - updatedAfterMaxLookbackMs) {
    throw new ApiError(400, 'updated_after_range_exceeded', 'updated_after may be at most 31 days in the past.');
  }
  return filters;
};
