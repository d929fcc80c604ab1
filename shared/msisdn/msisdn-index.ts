/**
 * The MSISDN index (issue #21): one `MSISDN#<digits>` claim item per MSISDN in use, naming the
 * SIM that holds it. It makes MSISDNs unique (a claim is a conditional write: no two SIMs can
 * hold one number) and lets an inbound SMS, which names only its originationNumber, find its
 * SIM with two GetItems. Every writer of SIMs keeps it: the seed loader writes the claims with
 * the SIMs (after refusing a document whose MSISDNs collide, within it or with the table), and
 * a path that creates a SIM or changes its MSISDN puts `claimMsisdn` (and, on a change,
 * `releaseMsisdn` of the old number) in the same transaction as the SIM item.
 *
 * A folder of its own, below sims/, sim-lists/ and sms/, which all use it (in sims/ it made
 * sims/ and sim-lists/ import each other).
 */
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGetItems, maxBatchGetKeys } from '../db/batch-get';
import { sendUnlessConditionFails } from '../db/conditions';
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

/** Condition of a claim: the MSISDN is free, or already this SIM's (writing a SIM again is harmless). */
const claimCondition = {
  ConditionExpression: 'attribute_not_exists(PK) OR sim_id = :sim',
};

/**
 * The TransactWriteItems entry that claims a SIM's MSISDN, to put in the same transaction as
 * the SIM item: it fails (the whole transaction is cancelled, `ConditionalCheckFailed` at its
 * index) when another SIM holds the number. Undefined for a SIM without MSISDN.
 */
export const claimMsisdn = (tableName: string, sim: ClaimingSim) => {
  const item = msisdnClaimItem(sim);
  if (!item) return undefined;
  return { Put: { TableName: tableName, Item: item, ...claimCondition, ExpressionAttributeValues: { ':sim': sim.id } } };
};

/**
 * The TransactWriteItems entry that releases an MSISDN a SIM gives up (its MSISDN changes or
 * the SIM goes): deletes the claim only while it is still that SIM's.
 */
export const releaseMsisdn = (tableName: string, msisdn: string, simId: number) => ({
  Delete: {
    TableName: tableName,
    Key: key.msisdn(msisdnDigits(msisdn)),
    ConditionExpression: 'attribute_not_exists(PK) OR sim_id = :sim',
    ExpressionAttributeValues: { ':sim': simId },
  },
});

/**
 * Claims a SIM's MSISDN on its own (one conditional PutItem), for a writer that does not use a
 * transaction: true when the SIM holds it now (or has no MSISDN), false when another SIM does.
 */
export const claimMsisdnAlone = async (table: MsisdnTable, sim: ClaimingSim): Promise<boolean> => {
  const entry = claimMsisdn(table.tableName, sim);
  if (!entry) return true;
  return sendUnlessConditionFails(table.db, new PutCommand(entry.Put));
};

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
    for (const item of (await batchGetItems(table.db, table.tableName, keys, { consistentRead: true })) as unknown as MsisdnClaimItem[]) {
      if (item.type === 'msisdn_claim') holders.set(item.msisdn, item);
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
