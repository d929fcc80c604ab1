/**
 * The seed document's vocabulary (LOCAL-CONTRACT.md, "Seed document") as valibot schemas: the
 * types, formats and allowed values of the fields of customers, data bundles and SIMs. The seed
 * loader (local/seed/schema.ts) and the operator feed (shared/feed/records.ts) check their
 * records with these same rules. Every message completes the sentence "<field> ...".
 */
import * as v from 'valibot';
import { parseIsoDateTime } from '../time/iso-date-time';
import { decimalPattern } from './decimal';

/** SIM status values (SPEC.md, "SIM status"). */
export const simStatuses = ['active', 'inactive', 'suspended', 'cancelled', 'stock', 'dispatched', 'trial'] as const;
/** SIM connection_status values. */
export const connectionStatuses = ['active', 'inactive'] as const;

const oneOf = (values: readonly string[]) => `must be one of ${values.join(', ')}`;

/**
 * The one rule for the ids the outside world gives (customers, data bundles, users, plan SKUs,
 * roles): 1 to 64 characters of ASCII letters, digits, `.`, `_` and `-`, starting with a letter
 * or a digit, and not a name that every JavaScript object carries (`constructor`, `toString`,
 * `valueOf`, `hasOwnProperty` ...: reservedIds). It leaves out the key separator `#` (so no id
 * can make its key equal another id's key: `SIMLIC#acme#1` is customer `acme`'s shard 1 and
 * never a customer `acme#1`), spaces and anything a key or a log line could be confused by, and
 * keeps every key well under DynamoDB's 2,048-byte partition and 1,024-byte sort key limits.
 * The object names are refused because ids are keys of stored maps (a group's directory, a SIM's
 * list positions): the AWS SDK's marshaller reads a map's `constructor` to tell its type, and
 * its unmarshaller assigns `__proto__`. Looked up, such a name is a plain unknown id everywhere
 * (every lookup by an outside name goes through a Map or Object.hasOwn).
 */
export const idPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Names every JavaScript object carries (Object.prototype's, and `prototype`): never ids. */
export const reservedIds: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);
/** The id rule in words, as every refusal of an id states it. */
export const idRule = 'must be 1 to 64 characters of letters, digits, ".", "_" and "-", starting with a letter or a digit';
/** The refusal of a reserved id in words. */
export const reservedIdRule = 'must not be a name every JavaScript object carries (constructor, prototype, toString, valueOf, hasOwnProperty ...)';
/** Whether a value is an id by the one rule (idPattern, not a reserved name). */
export const isId = (value: unknown): value is string => typeof value === 'string' && idPattern.test(value) && !reservedIds.has(value);

/** The most characters of a name (customer, plan, account, tariff). */
export const maxNameLength = 200;
/** The most characters of a phone number as a buyer gives it (SPEC.md, customer_phone). */
export const maxPhoneLength = 32;
/**
 * An MSISDN: an optional `+`, then 5 to 15 digits (E.164's most), single spaces allowed between
 * digits (`+44 7700 900001`); the MSISDN index keys it by its digits alone.
 */
export const msisdnPattern = /^\+?\d(?: ?\d){4,14}$/;
/** The MSISDN rule in words. */
export const msisdnRule = 'must be an MSISDN: an optional "+" and 5 to 15 digits (single spaces between digits allowed)';

/** C0 and C1 control characters (a name that holds one would break a log line, a header or an e-mail). */
const controlCharacter = /[\u0000-\u001f\u007f-\u009f]/;

/** A non-empty string of at most `max` characters without control characters (a name, a label). */
export const text = (max = maxNameLength) =>
  v.pipe(
    v.string('must be a string'),
    v.check((value) => value.trim() !== '', 'must not be empty'),
    v.maxLength(max, `must be at most ${max} characters`),
    v.check((value) => !controlCharacter.test(value), 'must not hold control characters'),
  );
/** An id by the one rule (idPattern, not a reserved name). */
export const identifier = () =>
  v.pipe(
    v.string('must be a string'),
    v.regex(idPattern, idRule),
    v.check((value) => !reservedIds.has(value), reservedIdRule),
  );
/** An MSISDN (msisdnPattern). */
export const msisdn = () => v.pipe(v.string('must be a string'), v.regex(msisdnPattern, msisdnRule));
/** true or false. */
export const flag = () => v.boolean('must be true or false');
/** An e-mail address. */
export const email = () => v.pipe(v.string('must be a string'), v.regex(/^[^\s@]+@[^\s@]+$/, 'must be an e-mail address'));
/** A decimal string of at most 12 integer digits and two decimal places ("12.50"). */
export const decimal = () =>
  v.pipe(
    v.string('must be a decimal string such as "12.50"'),
    v.regex(decimalPattern, 'must be a decimal string such as "12.50" (at most 12 integer digits and two decimal places)'),
  );
/** 1 to 20 digits. */
export const iccid = () => v.pipe(v.string('must be a string of digits'), v.regex(/^\d{1,20}$/, 'must be 1 to 20 digits'));
/** One of `values`. */
export const picklist = <T extends readonly [string, ...string[]]>(values: T) => v.picklist(values, oneOf(values));
/** An ISO-8601 date-time with a UTC offset. */
export const isoWithOffset = () =>
  v.pipe(
    v.string('must be a string'),
    v.check((value) => parseIsoDateTime(value, { requireOffset: true }) !== undefined, 'must be an ISO-8601 date-time with a UTC offset, such as "2026-11-20T10:00:00+00:00"'),
  );
/** An object with exactly these fields. */
export const entry = <T extends v.ObjectEntries>(entries: T) => v.strictObject(entries, 'must be an object');
/** A SIM's internal id: a positive integer of at most 15 digits. */
export const simId = () =>
  v.pipe(
    v.number('must be a positive integer'),
    v.safeInteger('must be a positive integer'),
    v.minValue(1, 'must be a positive integer'),
    v.maxValue(999_999_999_999_999, 'must have at most 15 digits'),
  );

/** customers[]: parent null (or absent) for a top-level customer group. */
export const customerFields = {
  id: identifier(),
  name: text(),
  parent: v.nullish(identifier(), null),
  sms_enabled: flag(),
};
/** A customer of the seed. */
export const customerSchema = entry(customerFields);

/** data_bundles[]: pool_used_mb is computed from the bundle's SIMs, never given. */
export const dataBundleFields = {
  id: identifier(),
  customer: identifier(),
  allowance_mb: decimal(),
  monthly_cost: decimal(),
  per_sim_access_fee: decimal(),
};
/** A data bundle of the seed. */
export const dataBundleSchema = entry(dataBundleFields);

/** The fields of a SIM that the seed and a feed `sim` record share (not usage, not `updated_at`). */
export const simFields = {
  id: simId(),
  iccid: iccid(),
  msisdn: v.nullish(msisdn(), null),
  status: picklist(simStatuses),
  connection_status: picklist(connectionStatuses),
  customer: identifier(),
  tariff_name: v.nullish(text(), null),
  base_cost: decimal(),
  data_bundle: v.nullish(identifier(), null),
};

/** A month `YYYY-MM` (usage). */
export const month = () => v.pipe(v.string('must be a string'), v.regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month such as "2026-11"'));
