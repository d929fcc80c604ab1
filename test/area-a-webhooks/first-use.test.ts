import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { issueApiKey, issueBearerToken } from '../../shared/auth/admin';
import { authenticateDeveloper } from '../../shared/auth/two-factor';
import { countCalls } from '../../shared/db/call-counter';
import { key } from '../../shared/db/keys';
import { tableWithSeed } from '../area-a/support/invoke';
import { webhookSeed } from './support/seed';

/**
 * identity.verified needs the authentication path to notice a credential's first successful use
 * (shared/auth/first-use.ts): one conditional write, then, once marked, nothing more than the
 * one authentication read it always made (docs/area-a.md costs hold).
 */
describe("a credential's first successful use", () => {
  it('is marked once, with one extra conditional write on the first request only', async () => {
    const { db, tableName } = await tableWithSeed(webhookSeed, { now: Date.now() });
    const deps = { db, tableName };
    const token = await issueBearerToken(deps, 'u-acme-00');
    const apiKey = await issueApiKey(deps, 'acme');
    const headers = { Authorization: `Bearer ${token.value}`, 'X-Customer-API-Key': apiKey.value };
    const counter = countCalls(db);

    await authenticateDeveloper(deps, { headers });
    expect(counter.calls.map((call) => call.command).sort()).toEqual(['BatchGetItemCommand', 'UpdateItemCommand', 'UpdateItemCommand']);
    expect(counter.roundTrips()).toBe(2);
    const stamped = async (itemKey: { PK: string; SK: string }) =>
      (await db.send(new GetCommand({ TableName: tableName, Key: itemKey, ConsistentRead: true }))).Item?.verified_at;
    const [tokenAt, keyAt] = [await stamped(key.bearerToken(token.prefix)), await stamped(key.apiKey(apiKey.prefix))];
    expect([tokenAt, keyAt]).toEqual([expect.stringMatching(/^\d{4}-\d\d-\d\dT/), expect.stringMatching(/^\d{4}-\d\d-\d\dT/)]);

    counter.reset();
    await authenticateDeveloper(deps, { headers });
    expect([counter.calls.map((call) => call.command), counter.roundTrips()]).toEqual([['BatchGetItemCommand'], 1]);
    expect([await stamped(key.bearerToken(token.prefix)), await stamped(key.apiKey(apiKey.prefix))]).toEqual([tokenAt, keyAt]);
    counter.detach();
  });

  it('is already behind a seeded credential: the seed loads credentials that are in use', async () => {
    const { db, tableName } = await tableWithSeed(webhookSeed, { now: Date.now() });
    const counter = countCalls(db);
    await authenticateDeveloper({ db, tableName }, { headers: { Authorization: 'Bearer bearer_whacme01_tokensecretacme01', 'X-Customer-API-Key': 'devkey_whacmekey_keysecretacme' } });
    expect(counter.calls.map((call) => call.command)).toEqual(['BatchGetItemCommand']);
    counter.detach();
  });
});
