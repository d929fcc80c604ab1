import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gsi1, key } from '../../shared/db/keys';
import { idPattern, isId } from '../../shared/vocabulary/fields';

/**
 * Issue #31, point 2: no id can make its key equal another id's key. Every key builder of
 * shared/db/keys.ts is called with arguments drawn from dense pools (ids of a few letters and
 * digits, the table's own key words, small SIM ids, shards,
 * pages and buckets, so that two calls often share parts) and from the whole of each rule
 * (isId, 15-digit SIM ids, ICCIDs, UUIDs); no two different calls, of one builder or of
 * two, may give the same key (PK and SK together; GSI1PK and GSI1SK for the GSI1 builders).
 */

/**
 * An id by `valid`: dense (a tiny alphabet that has the key separator, so that a rule which let
 * it through would show; the table's key words) or any of idPattern's that the rule allows.
 */
const idOf = (valid: (value: string) => boolean, pattern = idPattern) =>
  fc.oneof(
    fc.constantFrom('a', 'a1', '1', '10', 'a-1', 'a.1', 'a_1', 'Constructor', 'SIM', 'CUSTOMER', 'WEBHOOK', 'WEBHOOK_COUNT', 'META', 'HEAD', 'REBUILD', 'DIRECTORY', 'TOKEN', 'J').filter(valid),
    fc.stringMatching(/^[a1#]{1,3}$/).filter(valid),
    fc.stringMatching(/^[a1#._-]{1,4}$/).filter(valid),
    fc.stringMatching(pattern).filter(valid),
  );
const id = idOf(isId);
const small = (max: number) => fc.oneof(fc.constantFrom(0, 1, 2), fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max }));
const simId = fc.oneof(fc.constantFrom(1, 10, 11, 101, 1001), fc.integer({ min: 1, max: 999_999_999_999_999 }));
const digits = (min: number, max: number) => fc.oneof(fc.constantFrom('1', '10', '11', '101'.padStart(min, '1')), fc.stringMatching(new RegExp(`^\\d{${min},${max}}$`)));
const iccid = digits(1, 20);
const day = fc.oneof(fc.constantFrom('20261125', '20261126'), fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10).replaceAll('-', '')));
const listPrefix = fc.tuple(fc.constantFrom('D', 'I'), fc.constantFrom('a', 'i', 's', 'c', 'k', 'd', 't', 'x')).map(([owner, status]) => owner + status);
const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`));
/** Texts the service does not restrict to the id rule (message ids, event ids, batch ids, names): any, `#` included. */
const text = fc.oneof(fc.constantFrom('a', 'a#1', '#', '1#', 'SIM#1'), fc.string({ minLength: 1, maxLength: 12 }));
const isoTime = fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }).map((date) => date.toISOString());

/** One call of a key builder: its name and its arguments. */
type Call = { builder: string; args: unknown[] };

/** The builders with an arbitrary of their arguments; `ids` is the arbitrary of the ids (the rule under test). */
const builders = (ids: fc.Arbitrary<string>): Array<[string, fc.Arbitrary<unknown[]>, (...args: never[]) => Record<string, string>]> => [
  ['customer', fc.tuple(ids), key.customer],
  ['user', fc.tuple(ids), key.user],
  ['bearerToken', fc.tuple(fc.stringMatching(/^[A-Za-z0-9]{1,12}$/)), key.bearerToken],
  ['apiKey', fc.tuple(fc.stringMatching(/^[A-Za-z0-9]{1,12}$/)), key.apiKey],
  ['sim', fc.tuple(simId), key.sim],
  ['simScope', fc.tuple(ids, simId), key.simScope],
  ['dataBundle', fc.tuple(ids), key.dataBundle],
  ['message', fc.tuple(text), key.message],
  ['msisdn', fc.tuple(digits(5, 15)), key.msisdn],
  ['plan', fc.tuple(ids), key.plan],
  ['stockUnit', fc.tuple(fc.constantFrom('esim', 'physical'), iccid), key.stockUnit],
  ['account', fc.tuple(fc.emailAddress().map((email) => email.toLowerCase())), key.account],
  ['device', fc.tuple(iccid), key.device],
  ['order', fc.tuple(fc.uuid()), key.order],
  ['rateLimit', fc.tuple(ids, ids), key.rateLimit],
  ['idempotency', fc.tuple(fc.constantFrom('esim', 'physical', 'iot'), hex(64)), key.idempotency],
  ['fulfilmentEffect', fc.tuple(fc.uuid(), ids), key.fulfilmentEffect],
  ['fulfilmentTask', fc.tuple(fc.uuid()), key.fulfilmentTask],
  ['deviceTopup', fc.tuple(iccid, fc.uuid(), fc.integer({ min: 0, max: 99 })), key.deviceTopup],
  ['webhookSubscription', fc.tuple(ids, hex(24).map((value) => `wh_${value}`)), key.webhookSubscription],
  ['webhookCount', fc.tuple(ids), key.webhookCount],
  ['webhookDelivery', fc.tuple(ids, hex(24).map((value) => `wh_${value}`), fc.integer({ min: 0, max: 999_999_999_999_999 }), text, fc.integer({ min: 1, max: 99 })), key.webhookDelivery],
  ['simListMeta', fc.tuple(ids), key.simListMeta],
  ['simListFences', fc.tuple(ids, small(999_999)), key.simListFences],
  ['simListRebuild', fc.tuple(ids), key.simListRebuild],
  ['simListSequence', fc.tuple(ids, day), key.simListSequence],
  ['simListIdEntry', fc.tuple(ids, small(1_000_000), listPrefix, simId), key.simListIdEntry],
  ['simListIdCounts', fc.tuple(ids, small(999_999), small(64)), key.simListIdCounts],
  ['simListTimeEntry', fc.tuple(ids, day, small(1_000_000), listPrefix, fc.integer({ min: 0, max: 999_999_999_999_999 }), simId), key.simListTimeEntry],
  ['simListTimeCounts', fc.tuple(ids, day, small(999_999), small(64)), key.simListTimeCounts],
  ['groupDirectory', fc.tuple(ids), key.groupDirectory],
  ['poolContribution', fc.tuple(ids, small(64), simId), key.poolContribution],
  ['feedBatch', fc.tuple(day, small(64), isoTime, fc.uuid()), key.feedBatch],
  ['feedRejection', fc.tuple(day, small(64), isoTime, fc.uuid(), fc.integer({ min: 1, max: 999_999_999 })), key.feedRejection],
  ['simIdByIccid', fc.tuple(iccid), key.simIdByIccid],
  ['simListJournalHead', fc.tuple(ids), key.simListJournalHead],
  ['simListJournalEntry', fc.tuple(ids, small(999_999_999_999)), key.simListJournalEntry],
];

/** The GSI1 builders, keyed by (GSI1PK, GSI1SK). */
const gsi1Builders = (ids: fc.Arbitrary<string>): Array<[string, fc.Arbitrary<unknown[]>, (...args: never[]) => Record<string, string>]> => [
  ['simByIccid', fc.tuple(iccid), gsi1.simByIccid],
  ['customerByName', fc.tuple(text, ids), gsi1.customerByName],
  ['tokenOfUser', fc.tuple(ids, fc.stringMatching(/^[A-Za-z0-9]{1,12}$/)), gsi1.tokenOfUser],
  ['accountByCustomerId', fc.tuple(text), gsi1.accountByCustomerId],
  ['fulfilmentTaskByStatus', fc.tuple(fc.constantFrom('open', 'assigned', 'shipped'), isoTime, fc.uuid()), gsi1.fulfilmentTaskByStatus],
  ['messageByProviderId', fc.tuple(text), gsi1.messageByProviderId],
];

/** Calls of any of `table`'s builders. */
const callsOf = (table: ReturnType<typeof builders>): fc.Arbitrary<Call[]> =>
  fc.array(fc.oneof(...table.map(([builder, args]) => args.map((values): Call => ({ builder, args: values })))), { minLength: 2, maxLength: 40 });

/** The first two different calls of `calls` that give the same key, or undefined. */
const collision = (table: ReturnType<typeof builders>, calls: Call[]): string | undefined => {
  const byName = new Map(table.map(([builder, , make]) => [builder, make]));
  const seen = new Map<string, Call>();
  for (const call of calls) {
    const made = (byName.get(call.builder) as (...args: unknown[]) => Record<string, string>)(...call.args);
    const text = Object.values(made).join('\u0000');
    const earlier = seen.get(text);
    if (earlier && JSON.stringify(earlier) !== JSON.stringify(call)) return `${JSON.stringify(earlier)} and ${JSON.stringify(call)} both give ${JSON.stringify(made)}`;
    seen.set(text, call);
  }
  return undefined;
};

const property = (table: ReturnType<typeof builders>) => fc.property(callsOf(table), (calls) => collision(table, calls) === undefined);

describe('keys of the single table (shared/db/keys.ts)', () => {
  it('never coincide for two different valid ids, SIM ids, shards or pages, of one item kind or of two', () => {
    fc.assert(property(builders(id)), { numRuns: 2_000 });
  });

  it('never coincide on GSI1 for two different lookups', () => {
    fc.assert(property(gsi1Builders(id)), { numRuns: 500 });
  });

  it('would coincide if an id could hold "#": customer acme\'s count shard 1 is customer acme#1\'s shard 0', () => {
    const separatorPattern = /^[A-Za-z0-9][A-Za-z0-9._#-]{0,63}$/;
    const withSeparator = idOf((value) => separatorPattern.test(value), separatorPattern);
    // The collision itself as fast-check's first example: the checker must report it.
    const found = fc.check(property(builders(withSeparator)), {
      numRuns: 200,
      examples: [[[{ builder: 'simListIdCounts', args: ['acme', 3, 1] }, { builder: 'simListIdCounts', args: ['acme#1', 3, 0] }]]],
    });
    expect(found.failed).toBe(true);
    expect(key.simListIdCounts('acme', 3, 1)).toEqual(key.simListIdCounts('acme#1', 3, 0));
    expect(idPattern.test('acme#1')).toBe(false);
  });
});
