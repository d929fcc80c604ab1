/**
 * The MSISDN index (issue #21): one `MSISDN#<digits>` claim item per MSISDN ever used, naming the
 * SIM that holds it (or, `released`, held it last) and when a record last named it (issue #31). It makes MSISDNs unique (a claim is a conditional write: no two SIMs can
 * hold one number) and lets an inbound SMS, which names only its originationNumber, find its
 * SIM with two GetItems. Every writer of SIMs keeps it: the seed loader writes the claims with
 * the SIMs (after refusing a document whose MSISDNs collide, within it or with the table), and
 * a path that creates a SIM or changes its MSISDN puts `claimMsisdn` (and, on a change,
 * `releaseMsisdn` of the old number) in the same transaction as the SIM item.
 *
 * A folder of its own, below sims/, sim-lists/ and sms/, which all use it (in sims/ it made
 * sims/ and sim-lists/ import each other).
 */
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGetItems, maxBatchGetKeys } from '../db/batch-get';
import { isConditionFailure, sendUnlessConditionFails } from '../db/conditions';
import type { MsisdnClaimItem, SimItem } from '../db/items';
import { key } from '../db/keys';

/** The table the index lives in. */
export interface MsisdnTable {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/** The SIM fields a claim is made from. */
export type ClaimingSim = Pick<SimItem, 'id' | 'iccid' | 'msisdn'>;

/**
 * The digits of an MSISDN, as the index keys it: `+44 7700 900001`, `447700900001` and
 * `+447700900001` are one number. Empty when the text holds no digit.
 */
export const msisdnDigits = (msisdn: string): string => msisdn.replace(/\D/g, '');

/** The claim item of a SIM's MSISDN, or undefined for a SIM without one (or an MSISDN without digits). */
export const msisdnClaimItem = (sim: ClaimingSim): MsisdnClaimItem | undefined => {
  const digits = sim.msisdn ? msisdnDigits(sim.msisdn) : '';
  if (!digits) return undefined;
  return { ...key.msisdn(digits), type: 'msisdn_claim', msisdn: digits, sim_id: sim.id, iccid: sim.iccid };
};

/**
 * Condition of a claim without a source time (a writer that is not the feed): the MSISDN is
 * free, given up by its last holder, or already this SIM's (writing a SIM again is harmless).
 */
const claimCondition = 'attribute_not_exists(PK) OR sim_id = :sim OR released = :true';

/**
 * The TransactWriteItems entry that claims a SIM's MSISDN, to put in the same transaction as
 * the SIM item: it fails (the whole transaction is cancelled, `ConditionalCheckFailed` at its
 * index) when another SIM holds the number. Undefined for a SIM without MSISDN. The claim
 * counts as made at `nowMs` (`claim_ms`), as if an operator's record named the number then.
 */
export const claimMsisdn = (tableName: string, sim: ClaimingSim, nowMs = Date.now()) => {
  const item = msisdnClaimItem(sim);
  if (!item) return undefined;
  return {
    Put: {
      TableName: tableName,
      Item: { ...item, claim_ms: nowMs, released: false },
      ConditionExpression: claimCondition,
      ExpressionAttributeValues: { ':sim': sim.id, ':true': true },
    },
  };
};

/**
 * The TransactWriteItems entry that releases an MSISDN a SIM gives up (its MSISDN changes or
 * the SIM goes), while the claim is still that SIM's: the claim stays, marked `released`, so
 * that it still says when a record last named the number (a late record older than that
 * cannot take it: claimMsisdnAt).
 */
export const releaseMsisdn = (tableName: string, msisdn: string, simId: number) => ({
  Update: {
    TableName: tableName,
    Key: key.msisdn(msisdnDigits(msisdn)),
    UpdateExpression: 'SET released = :true',
    ConditionExpression: 'sim_id = :sim',
    ExpressionAttributeValues: { ':sim': simId, ':true': true },
  },
});

/**
 * Claims a SIM's MSISDN on its own (one conditional PutItem), for a writer that does not use a
 * transaction: true when the SIM holds it now (or has no MSISDN), false when another SIM does.
 */
export const claimMsisdnAlone = async (table: MsisdnTable, sim: ClaimingSim, nowMs = Date.now()): Promise<boolean> => {
  const entry = claimMsisdn(table.tableName, sim, nowMs);
  if (!entry) return true;
  return sendUnlessConditionFails(table.db, new PutCommand(entry.Put));
};

/** What registering a record that names an MSISDN did (claimMsisdnAt). */
export type TimedClaim =
  /** The record is the latest to name the number: the claim is its SIM's now; `formerHolder` held it until then. */
  | { won: true; formerHolder?: { simId: number; iccid: string } }
  /** A later record (or one as late, of a SIM with a higher id) named the number: its SIM keeps it. */
  | { won: false };

/**
 * Registers a record of the operator feed that names an MSISDN at a source time (issue #31,
 * LOCAL-CONTRACT.md "Operator feed": a number belongs to the SIM of the latest record that names
 * it). The claim item remembers the latest record that named its number (`claim_ms`, `sim_id`):
 * one conditional UpdateItem makes this record the claim when it is later (a claim without a
 * time, from the seed, counts as older than any record; two records of the same time are
 * decided by the higher SIM id, so that any order of arrival ends alike). `holds` says whether
 * the record's SIM takes the number (false when the SIM has since moved past this record: the
 * record still counts as the latest to name the number, so an older claim cannot win, but the
 * claim is `released`). The caller drops the number from `formerHolder` (its msisdn becomes
 * null) and writes its own SIM conditional on the claim (claimCheck).
 */
export const claimMsisdnAt = async (
  table: MsisdnTable,
  sim: Pick<SimItem, 'id' | 'iccid'>,
  msisdn: string,
  sourceMs: number,
  holds: boolean,
): Promise<TimedClaim> => {
  const digits = msisdnDigits(msisdn);
  try {
    const updated = await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: key.msisdn(digits),
        UpdateExpression: 'SET #type = :type, msisdn = :msisdn, sim_id = :sim, iccid = :iccid, claim_ms = :time, released = :released',
        ConditionExpression: 'attribute_not_exists(PK) OR attribute_not_exists(claim_ms) OR claim_ms < :time OR (claim_ms = :time AND sim_id <= :sim)',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':type': 'msisdn_claim', ':msisdn': digits, ':sim': sim.id, ':iccid': sim.iccid, ':time': sourceMs, ':released': !holds },
        ReturnValues: 'ALL_OLD',
      }),
    );
    const before = updated.Attributes as (MsisdnClaimItem & { released?: boolean }) | undefined;
    const held = before !== undefined && before.sim_id !== sim.id && before.released !== true;
    return { won: true, ...(held ? { formerHolder: { simId: before.sim_id, iccid: before.iccid } } : {}) };
  } catch (error) {
    if (isConditionFailure(error)) return { won: false };
    throw error;
  }
};

/**
 * The TransactWriteItems entry that makes a SIM write conditional on a claim it won
 * (claimMsisdnAt): still this SIM's, from the same record, not released. Cancelled when a later
 * record took the number meanwhile (the writer then tries again and loses the claim).
 */
export const claimCheck = (tableName: string, msisdn: string, simId: number, sourceMs: number) => ({
  ConditionCheck: {
    TableName: tableName,
    Key: key.msisdn(msisdnDigits(msisdn)),
    ConditionExpression: 'sim_id = :sim AND claim_ms = :time AND released = :false',
    ExpressionAttributeValues: { ':sim': simId, ':time': sourceMs, ':false': false },
  },
});

/**
 * Who holds each of these MSISDNs now: digits → the claim, for the numbers claimed (BatchGetItem,
 * 100 keys per call). The seed loader refuses a document whose SIM would take a number another
 * SIM of the table holds.
 */
export const msisdnHolders = async (table: MsisdnTable, msisdns: string[]): Promise<Map<string, MsisdnClaimItem>> => {
  const digits = [...new Set(msisdns.map(msisdnDigits).filter(Boolean))];
  const holders = new Map<string, MsisdnClaimItem>();
  for (let start = 0; start < digits.length; start += maxBatchGetKeys) {
    const keys = digits.slice(start, start + maxBatchGetKeys).map((number) => key.msisdn(number));
    for (const item of (await batchGetItems(table.db, table.tableName, keys, { consistentRead: true })) as unknown as (MsisdnClaimItem & { released?: boolean })[]) {
      if (item.type === 'msisdn_claim' && item.released !== true) holders.set(item.msisdn, item);
    }
  }
  return holders;
};

/**
 * The SIM that holds an MSISDN (any spelling: only its digits count), or undefined: the claim
 * (GetItem `MSISDN#<digits>`), then the SIM it names (GetItem `SIM#<id>`). A claim whose SIM no
 * longer carries that number (a writer that did not keep the index) counts as no SIM.
 *
 * Both reads are strongly consistent (2 read units instead of 1): an inbound SMS is stored as
 * the message of the SIM found here, readable by that SIM's customer group, so during a
 * number's reassignment an eventually consistent read, which may return the claim or the SIM
 * as they were before the last write, could hand another tenant's SIM the message (the former
 * holder's claim), or drop it (the new holder's SIM item not yet showing the number).
 */
export const findSimByMsisdn = async (table: MsisdnTable, msisdn: string): Promise<SimItem | undefined> => {
  const digits = msisdnDigits(msisdn);
  if (!digits) return undefined;
  const claim = (await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.msisdn(digits), ConsistentRead: true }))).Item as
    | MsisdnClaimItem
    | undefined;
  if (claim?.type !== 'msisdn_claim') return undefined;
  const sim = (await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.sim(claim.sim_id), ConsistentRead: true }))).Item as
    | SimItem
    | undefined;
  if (sim?.type !== 'sim' || !sim.msisdn || msisdnDigits(sim.msisdn) !== digits) return undefined;
  return sim;
};
