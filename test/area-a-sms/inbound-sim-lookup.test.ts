import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSeedDocument } from '../../local/seed/load';
import { key } from '../../shared/db/keys';
import { findSimByMsisdn } from '../../shared/msisdn/msisdn-index';
import { receiveInboundSms } from '../../shared/sms/inbound';
import { createTestTable, testDocumentClient, testDynamoClient } from '../support/resources';
import { sims, smsSeed } from './support/seed';

/**
 * The SIM of an inbound number is found with strongly consistent reads (issue #31 point 6):
 * while a number moves from one SIM to another, an eventually consistent read of its claim
 * could still name the former holder, and the message would be stored as that SIM's. DynamoDB
 * Local is always consistent, so the reads cannot be caught out there: instead a middleware on a
 * real client records the GetItem requests as they go to DynamoDB Local, and the test asserts
 * what they ask for.
 */

interface WireRequest {
  target: string;
  body: Record<string, unknown>;
}

const client = testDynamoClient();
const sent: WireRequest[] = [];
/** Every request as it goes on the wire: its X-Amz-Target and its JSON body. */
client.middlewareStack.add(
  (next) => async (args) => {
    const request = args.request as { headers: Record<string, string>; body?: string };
    sent.push({ target: request.headers['x-amz-target'] ?? '', body: JSON.parse(request.body ?? '{}') as Record<string, unknown> });
    return next(args);
  },
  { step: 'build', name: 'recordRequests' },
);
const db = testDocumentClient(client);
let tableName: string;

beforeAll(async () => {
  tableName = await createTestTable({ stream: false });
  await loadSeedDocument(smsSeed, { client: testDynamoClient(), tableName });
});
afterAll(() => client.destroy());

const getItems = () => sent.filter((request) => request.target === 'DynamoDB_20120810.GetItem').map((request) => request.body);

describe('the SIM of an inbound number', () => {
  it('is found with two strongly consistent GetItems: the MSISDN claim, then the SIM', async () => {
    sent.length = 0;
    const sim = await findSimByMsisdn({ db, tableName }, `+${sims.globex.msisdn}`);
    expect(sim).toMatchObject({ id: 2005, iccid: sims.globex.iccid, customer_id: 'globex' });
    const [claimKey, simKey] = [key.msisdn(sims.globex.msisdn), key.sim(2005)];
    expect(getItems()).toEqual([
      { TableName: tableName, Key: { PK: { S: claimKey.PK }, SK: { S: claimKey.SK } }, ConsistentRead: true },
      { TableName: tableName, Key: { PK: { S: simKey.PK }, SK: { S: simKey.SK } }, ConsistentRead: true },
    ]);
  });

  it('is read strongly consistent on the inbound path, whose message is then stored as that SIM’s', async () => {
    sent.length = 0;
    const networkId = randomUUID();
    const outcome = await receiveInboundSms(
      { table: { db, tableName }, now: () => new Date('2026-11-25T12:00:00Z') },
      { originationNumber: `+${sims.north.msisdn}`, destinationNumber: null, messageBody: 'hi', inboundMessageId: networkId, previousPublishedMessageId: null, messageKeyword: null },
    );
    expect(outcome).toBe('stored');
    expect(getItems().map((request) => [(request.Key as { PK: { S: string } }).PK.S, request.ConsistentRead])).toEqual([
      [key.msisdn(sims.north.msisdn).PK, true],
      [key.sim(2002).PK, true],
    ]);
    expect(sent.map((request) => request.target)).toEqual(['DynamoDB_20120810.GetItem', 'DynamoDB_20120810.GetItem', 'DynamoDB_20120810.PutItem']);
    expect(sent[2]!.body).toMatchObject({ Item: { PK: { S: `MSG#mo-${networkId}` }, iccid: { S: sims.north.iccid }, owner_customer_id: { S: 'acme-north' } } });
  });
});
