/**
 * The operator feed's records (issue #20; LOCAL-CONTRACT.md, "Operator feed"): one JSON object a
 * line, in the seed document's vocabulary (shared/vocabulary/fields.ts), each with a `type` and a
 * `source_time`. Reading a line checks its JSON, its type and its field rules; whether what it
 * names exists is for the consumer (./apply.ts).
 */
import * as v from 'valibot';
import { parseIsoDateTime } from '../time/iso-date-time';
import { quoteInput } from '../errors/detail-text';
import { firstUnknownField } from '../vocabulary/unknown-fields';
import { actionIdPattern } from '../sim-actions/action-id';
import {
  connectionStatuses,
  customerFields,
  dataBundleFields,
  decimal,
  entry,
  iccid,
  isoWithOffset,
  month,
  picklist,
  simFields,
  simId,
  simStatuses,
} from '../vocabulary/fields';

const sourceTime = { source_time: isoWithOffset() };

/** `sim`: create or update a SIM (id and iccid always; a new SIM needs customer, status and connection_status). */
const simRecord = entry({
  type: v.literal('sim'),
  ...sourceTime,
  id: simId(),
  iccid: iccid(),
  msisdn: v.optional(simFields.msisdn),
  customer: v.optional(simFields.customer),
  status: v.optional(picklist(simStatuses)),
  connection_status: v.optional(picklist(connectionStatuses)),
  tariff_name: v.optional(simFields.tariff_name),
  base_cost: v.optional(decimal()),
  data_bundle: v.optional(simFields.data_bundle),
});

/**
 * `sim_status`: status and/or connection_status of an existing SIM; `action_id` (issue #33) names
 * the SIM action the record confirms (docs/sim-actions.md: an action completes when its SIM has
 * the status it asked for, whichever record brings it there).
 */
const simStatusRecord = v.pipe(
  entry({
    type: v.literal('sim_status'),
    ...sourceTime,
    iccid: iccid(),
    status: v.optional(picklist(simStatuses)),
    connection_status: v.optional(picklist(connectionStatuses)),
    action_id: v.optional(v.pipe(v.string('must be a string'), v.regex(actionIdPattern, 'must be a SIM action id (act_ and 28 hexadecimal digits)'))),
  }),
  v.check((record) => record.status !== undefined || record.connection_status !== undefined, 'needs status, connection_status or both'),
);

/** `usage`: month-to-date usage and overage cost of an existing SIM, for a month. */
const usageRecord = entry({
  type: v.literal('usage'),
  ...sourceTime,
  iccid: iccid(),
  month: month(),
  data_used_mb: decimal(),
  data_overage_mb: decimal(),
  overage_cost: decimal(),
});

/** `customer`: create or update a customer (never moved to another parent). */
const customerRecord = entry({ type: v.literal('customer'), ...sourceTime, ...customerFields });

/** `data_bundle`: create or update a data bundle. */
const dataBundleRecord = entry({ type: v.literal('data_bundle'), ...sourceTime, ...dataBundleFields });

const schemaList = { sim: simRecord, sim_status: simStatusRecord, usage: usageRecord, customer: customerRecord, data_bundle: dataBundleRecord } as const;

/** A record type of the feed. */
export type FeedRecordType = keyof typeof schemaList;

/** The feed's record types. */
export const feedRecordTypes = Object.keys(schemaList) as FeedRecordType[];

/** Each type's schema, by a name read from a line: a Map, so `constructor` or `__proto__` is an unknown type, never a property. */
const schemas = new Map<string, v.GenericSchema>(Object.entries(schemaList));

/** The fields of an object schema, or of the object schema a pipe starts with. */
const fieldsOf = (schema: v.GenericSchema): string[] => {
  if ('entries' in schema) return Object.keys(schema.entries as object);
  if ('pipe' in schema) return fieldsOf((schema.pipe as v.GenericSchema[])[0]!);
  return [];
};

/** Each type's fields, by type: a line's unknown field is named (with the field it most likely meant) before any rule runs. */
const fieldsByType = new Map<string, ReadonlySet<string>>([...schemas].map(([type, schema]) => [type, new Set(fieldsOf(schema))]));

/** A record read from a line, with its source time in epoch milliseconds. */
export type FeedRecord = {
  [Type in FeedRecordType]: v.InferOutput<(typeof schemaList)[Type]> & { sourceMs: number };
}[FeedRecordType];

/** A record of one type. */
export type FeedRecordOf<Type extends FeedRecordType> = Extract<FeedRecord, { type: Type }>;

/** A line read: its record, or why it was refused. */
export type ReadLine = { record: FeedRecord } | { reason: string };

/** The longest line read (a longer one is refused without being parsed). */
export const maxLineBytes = 16 * 1024;

/** How far ahead of the service's clock a `source_time` may be (an operator's clock may run a little ahead, not a day). */
export const maxSourceTimeAheadMs = 24 * 3_600_000;

/** The month after the one of `nowMs` (`YYYY-MM`): the latest month a usage record may be for. */
const nextMonthOf = (nowMs: number): string => {
  const now = new Date(nowMs);
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 7);
};

/**
 * Reads one line of the feed: not JSON, an unknown `type`, an unknown field (named before any
 * rule runs, with the field it most likely meant: `statuss` is not reported as `status`
 * missing), or a field that breaks the seed's rules is refused with a reason naming it (at most 64 characters of any value quoted); so is a
 * `source_time` more than 24 hours ahead of `nowMs` (it would freeze its fields until that
 * time) and a usage `month` after the next one.
 */
export const readFeedLine = (line: string, nowMs: number): ReadLine => {
  if (Buffer.byteLength(line, 'utf8') > maxLineBytes) return { reason: `the line is longer than ${maxLineBytes} bytes` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { reason: 'the line is not JSON' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { reason: 'the line is not a JSON object' };
  const type = (parsed as { type?: unknown }).type;
  const schema = typeof type === 'string' ? schemas.get(type) : undefined;
  if (!schema) return { reason: `type ${type === undefined ? 'is missing' : `${quoteInput(type)} is unknown`}; one of ${feedRecordTypes.join(', ')}` };
  const unknown = firstUnknownField(parsed, fieldsByType.get(type as string)!);
  if (unknown) return { reason: `unknown field ${quoteInput(unknown.field)} in a ${type} record${unknown.meant ? ` (did you mean "${unknown.meant}"?)` : ''}` };
  const result = v.safeParse(schema, parsed);
  if (!result.success) {
    const issue = result.issues[0];
    const path = issue.path?.map((segment) => String(segment.key)).join('.');
    if (issue.type === 'strict_object' && issue.expected === 'never') return { reason: `unknown field "${path}" in a ${type} record` };
    if (issue.type === 'strict_object' && issue.received === 'undefined') return { reason: `${path} is required in a ${type} record` };
    return { reason: path ? `${path} ${issue.message}` : issue.message };
  }
  const record = result.output as FeedRecord;
  const sourceMs = parseIsoDateTime(record.source_time, { requireOffset: true })!;
  if (sourceMs > nowMs + maxSourceTimeAheadMs) return { reason: `source_time ${record.source_time} is more than 24 hours ahead of the service's clock (${new Date(nowMs).toISOString()})` };
  if (record.type === 'usage' && record.month > nextMonthOf(nowMs)) return { reason: `month ${record.month} is after next month (${nextMonthOf(nowMs)})` };
  return { record: { ...record, sourceMs } };
};

/**
 * The lines of a JSON Lines text, numbered from `firstLine` (1 for a whole body): blank lines
 * are skipped (they are not records), a trailing carriage return is dropped.
 */
export const feedLines = (text: string, firstLine = 1): { line: number; text: string }[] =>
  text
    .split('\n')
    .map((content, index) => ({ line: firstLine + index, text: content.endsWith('\r') ? content.slice(0, -1) : content }))
    .filter((entry) => entry.text.trim() !== '');
