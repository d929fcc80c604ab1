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

/** A non-empty string. */
export const text = () => v.pipe(v.string('must be a string'), v.check((value) => value.trim() !== '', 'must not be empty'));
/** A non-empty string without spaces (an id). */
export const identifier = () => v.pipe(v.string('must be a string'), v.regex(/^\S+$/, 'must be a non-empty string without spaces'));
/** true or false. */
export const flag = () => v.boolean('must be true or false');
/** An e-mail address. */
export const email = () => v.pipe(v.string('must be a string'), v.regex(/^[^\s@]+@[^\s@]+$/, 'must be an e-mail address'));
/** A decimal string with at most two decimal places ("12.50"). */
export const decimal = () =>
  v.pipe(v.string('must be a decimal string such as "12.50"'), v.regex(decimalPattern, 'must be a decimal string such as "12.50" (at most two decimal places)'));
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
  msisdn: v.nullish(text(), null),
  status: picklist(simStatuses),
  connection_status: picklist(connectionStatuses),
  customer: identifier(),
  tariff_name: v.nullish(text(), null),
  base_cost: decimal(),
  data_bundle: v.nullish(identifier(), null),
};

/** A month `YYYY-MM` (usage). */
export const month = () => v.pipe(v.string('must be a string'), v.regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month such as "2026-11"'));
