import { dynamodbEndpoint } from '../support/dynamodb-lease';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DynamoDBDocumentClient, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../admin/cli';
import { loadSeedDocument } from '../../local/seed/load';
import { credentialHash } from '../../shared/auth/credentials';
import { authenticateDeveloper } from '../../shared/auth/two-factor';
import { key } from '../../shared/db/keys';
import { createTestTable, testDynamoClient } from '../support/resources';
import { apiKeyOf, areaASeed, tokenOf } from './support/seed';

const client = testDynamoClient();
const db = DynamoDBDocumentClient.from(client);
let tableName: string;

beforeAll(async () => {
  tableName = await createTestTable();
  await loadSeedDocument(
    {
      ...areaASeed(Date.now(), [
        { id: 'ada', customer: 'root' },
        { id: 'bob', customer: 'north' },
        { id: 'cy', customer: 'root' },
      ]),
    },
    { client, tableName },
  );
});

afterAll(() => client.destroy());

/** Runs the CLI in-process against the test table; returns exit code and output lines. */
const admin = async (...args: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin([...args, '--table', tableName, '--endpoint', dynamodbEndpoint(), '--region', 'eu-west-2'], {
    env: {},
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out, err };
};

const item = async (itemKey: { PK: string; SK: string }) =>
  (await db.send(new GetCommand({ TableName: tableName, Key: itemKey, ConsistentRead: true }))).Item;

const authenticate = (token: string, apiKey: string) =>
  authenticateDeveloper({ db, tableName }, { headers: { Authorization: `Bearer ${token}`, 'X-Customer-API-Key': apiKey } }).then(
    (caller) => caller,
    (error: { status: number; code: string }) => ({ status: error.status, code: error.code }),
  );

const tableText = async () => JSON.stringify((await db.send(new ScanCommand({ TableName: tableName }))).Items);

describe('npm run admin', () => {
  it('issues a bearer token: printed once, stored only as its hash with a copy of the user, usable at once', async () => {
    const { code, out, err } = await admin('issue-token', '--user', 'ada');
    expect(code).toBe(0);
    expect(out).toHaveLength(1);
    const token = out[0]!;
    expect(token).toMatch(/^bearer_[0-9a-f]{12}_[0-9a-f]{64}$/);
    const prefix = token.split('_')[1]!;
    expect(err).toEqual([`Issued bearer token ${prefix} for user ada. It is shown once; store it now:`]);
    expect(await item(key.bearerToken(prefix))).toEqual({
      ...key.bearerToken(prefix),
      GSI1PK: 'USER#ada',
      GSI1SK: `TOKEN#${prefix}`,
      type: 'bearer_token',
      prefix,
      secret_hash: credentialHash(token),
      user_id: 'ada',
      revoked: false,
      user_active: true,
      user_roles: ['developer'],
      user_customer_id: 'root',
    });
    expect(await tableText()).not.toContain(token.split('_')[2]);
    expect(await authenticate(token, apiKeyOf('root'))).toEqual({
      userId: 'ada', userCustomerId: 'root', customerId: 'root', customerPath: ['root'],
    });
  });

  it("issues an API key: printed once, stored only as its hash with its customer's path, usable at once", async () => {
    const { code, out } = await admin('issue-key', '--customer', 'northeast');
    expect(code).toBe(0);
    const apiKey = out[0]!;
    expect(apiKey).toMatch(/^devkey_[0-9a-f]{12}_[0-9a-f]{64}$/);
    const prefix = apiKey.split('_')[1]!;
    expect(await item(key.apiKey(prefix))).toEqual({
      ...key.apiKey(prefix),
      type: 'api_key',
      prefix,
      secret_hash: credentialHash(apiKey),
      customer_id: 'northeast',
      customer_path: ['root', 'north', 'northeast'],
      revoked: false,
    });
    expect(await tableText()).not.toContain(apiKey.split('_')[2]);
    expect(await authenticate(tokenOf('bob'), apiKey)).toEqual({
      userId: 'bob', userCustomerId: 'north', customerId: 'northeast', customerPath: ['root', 'north', 'northeast'],
    });
  });

  it('refuses to issue for an unknown user or customer (exit 1)', async () => {
    expect(await admin('issue-token', '--user', 'nobody')).toEqual({ code: 1, out: [], err: ['Refused: no user with id "nobody"'] });
    expect(await admin('issue-key', '--customer', 'nowhere')).toEqual({ code: 1, out: [], err: ['Refused: no customer with id "nowhere"'] });
  });

  it('revokes a token by prefix or by the whole token, and a key likewise; effective on the next request', async () => {
    const issued = (await admin('issue-token', '--user', 'cy')).out[0]!;
    const prefix = issued.split('_')[1]!;
    expect(await admin('revoke-token', prefix)).toEqual({ code: 0, out: [`Revoked bearer token ${prefix}`], err: [] });
    expect(await authenticate(issued, apiKeyOf('root'))).toEqual({ status: 401, code: 'invalid_bearer_token' });
    expect(await admin('revoke-token', tokenOf('cy'))).toEqual({ code: 0, out: ['Revoked bearer token cytok'], err: [] });
    expect(await authenticate(tokenOf('cy'), apiKeyOf('root'))).toEqual({ status: 401, code: 'invalid_bearer_token' });

    expect(await admin('revoke-key', apiKeyOf('south'))).toEqual({ code: 0, out: ['Revoked API key southkey'], err: [] });
    expect(await authenticate(tokenOf('ada'), apiKeyOf('south'))).toEqual({ status: 401, code: 'invalid_api_key' });
    expect(await admin('revoke-key', 'nosuchkey')).toEqual({ code: 1, out: [], err: ['Refused: no API key with prefix "nosuchkey"'] });
    expect(await admin('revoke-token', 'bad-prefix!')).toMatchObject({ code: 1 });
  });

  it("deactivates a user with all of the user's tokens, and activates them again", async () => {
    const second = (await admin('issue-token', '--user', 'bob')).out[0]!;
    expect(await admin('deactivate-user', 'bob')).toEqual({ code: 0, out: ['Deactivated user bob (2 tokens updated)'], err: [] });
    expect(await item(key.user('bob'))).toMatchObject({ active: false });
    expect(await authenticate(tokenOf('bob'), apiKeyOf('north'))).toEqual({ status: 401, code: 'user_inactive' });
    expect(await authenticate(second, apiKeyOf('north'))).toEqual({ status: 401, code: 'user_inactive' });
    // A token issued while the user is inactive copies that state.
    const whileInactive = (await admin('issue-token', '--user', 'bob')).out[0]!;
    expect(await authenticate(whileInactive, apiKeyOf('north'))).toEqual({ status: 401, code: 'user_inactive' });

    expect(await admin('activate-user', 'bob')).toEqual({ code: 0, out: ['Activated user bob (3 tokens updated)'], err: [] });
    expect(await authenticate(second, apiKeyOf('north'))).toMatchObject({ userId: 'bob', customerId: 'north' });
    expect(await admin('deactivate-user', 'nobody')).toEqual({ code: 1, out: [], err: ['Refused: no user with id "nobody"'] });
  });

  it('answers usage errors with exit code 2', async () => {
    expect((await admin()).code).toBe(2);
    expect((await admin('frobnicate')).err[0]).toMatch(/^unknown command "frobnicate"\nusage: npm run admin -- COMMAND/);
    expect((await admin('issue-token')).code).toBe(2);
    expect((await admin('revoke-key')).code).toBe(2);
    expect((await admin('issue-key', '--colour', 'red')).code).toBe(2);
  });

  it('runs as `npm run admin` (the package script) with TABLE_NAME and DYNAMODB_ENDPOINT from the environment', async () => {
    const { stdout, stderr } = await promisify(execFile)('npm', ['run', '--silent', 'admin', '--', 'issue-key', '--customer', 'south'], {
      env: { ...process.env, TABLE_NAME: tableName, DYNAMODB_ENDPOINT: dynamodbEndpoint(), AWS_REGION: 'eu-west-2' },
    });
    const printed = stdout.trim();
    expect(printed).toMatch(/^devkey_[0-9a-f]{12}_[0-9a-f]{64}$/);
    expect(stderr).toContain(`Issued API key ${printed.split('_')[1]} for customer south.`);
    expect(await item(key.apiKey(printed.split('_')[1]!))).toMatchObject({ customer_id: 'south', secret_hash: credentialHash(printed) });
  });
});
