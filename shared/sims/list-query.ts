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

/** A whole number from 1 to `max` written in digits only, or undefined. */
const wholeNumber = (value: string, max: number): number | undefined => {
  if (!/^\d+$/.test(value)) return undefined;
  const number = Number(value);
  return Number.isSafeInteger(number) && number >= 1 && number <= max ? number : undefined;
};

const isSimStatus = (value: string): value is (typeof simStatuses)[number] => (simStatuses as readonly string[]).includes(value);

/**
 * A valid A1 query string (parameters in this order; the first invalid one answers):
 * page (default 1), page_size (default 25, 1 to 100), status (a SIM status),
 * customer (any string: resolved later), updated_after (an ISO-8601 date-time, as epoch
 * milliseconds). Unknown parameters are ignored.
 */
export interface ListSimsFilters {
  page: number;
  page_size: number;
  status?: (typeof simStatuses)[number];
  customer?: string;
  updated_after?: number;
}

const refuse = (code: InvalidCode): ApiError => new ApiError(400, code, invalid[code]);

/**
 * Validates A1's query string parameters (API Gateway's `queryStringParameters`, last value
 * per name) at time `now`: 400 invalid_page, invalid_page_size, invalid_status_filter or
 * invalid_updated_after for a malformed value, 400 updated_after_range_exceeded for an
 * updated_after more than 31 days before now (a future one is allowed and matches nothing).
 */
export const parseListSimsQuery = (query: Record<string, string | undefined> | null | undefined, now: number): ListSimsFilters => {
  const given = query ?? {};
  const page = wholeNumber(given.page ?? '1', Number.MAX_SAFE_INTEGER);
  if (page === undefined) throw refuse('invalid_page');
  const pageSize = wholeNumber(given.page_size ?? String(defaultPageSize), maxPageSize);
  if (pageSize === undefined) throw refuse('invalid_page_size');
  const filters: ListSimsFilters = { page, page_size: pageSize };
  if (given.status !== undefined) {
    if (!isSimStatus(given.status)) throw refuse('invalid_status_filter');
    filters.status = given.status;
  }
  if (given.customer !== undefined) filters.customer = given.customer;
  if (given.updated_after !== undefined) {
    const updatedAfter = parseIsoDateTime(given.updated_after);
    if (updatedAfter === undefined || Number.isNaN(updatedAfter)) throw refuse('invalid_updated_after');
    filters.updated_after = updatedAfter;
  }
  if (filters.updated_after !== undefined && filters.updated_after < now - updatedAfterMaxLookbackMs) {
    throw new ApiError(400, 'updated_after_range_exceeded', 'updated_after may be at most 31 days in the past.');
  }
  return filters;
};
