import { dynamodbEndpoint } from '../support/dynamodb-lease';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  const seed = areaASeed(Date.now(), [
    { id: 'ada', customer: 'root' },
    { id: 'bob', customer: 'north' },
    { id: 'cy', customer: 'root' },
  ]);
  await loadSeedDocument(seed, { client, tableName });
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
      userId: 'ada', userCustomerId: 'root', customerId: 'root', customerPath: ['root'], roles: ['developer'], scopes: ['sims:read', 'sms:send'],
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
      scopes: ['sims:read', 'sms:send'],
    });
    expect(await tableText()).not.toContain(apiKey.split('_')[2]);
    expect(await authenticate(tokenOf('bob'), apiKey)).toEqual({
      userId: 'bob', userCustomerId: 'north', customerId: 'northeast', customerPath: ['root', 'north', 'northeast'], roles: ['developer'], scopes: ['sims:read', 'sms:send'],
    });
  });

  it('issues an API key with the scopes given, and sets the scopes of a key; a scope that is not one is refused (exit 2)', async () => {
    const { code, out } = await admin('issue-key', '--customer', 'root', '--scopes', 'sims:manage, sims:read');
    expect(code).toBe(0);
    const prefix = out[0]!.split('_')[1]!;
    expect((await item(key.apiKey(prefix)))?.scopes).toEqual(['sims:read', 'sims:manage']);
    expect(await authenticate(tokenOf('ada'), out[0]!)).toMatchObject({ scopes: ['sims:read', 'sims:manage'] });
    expect(await admin('set-key-scopes', prefix, '--scopes', 'sms:send')).toEqual({ code: 0, out: [`API key ${prefix} has the scopes: sms:send`], err: [] });
    expect(await authenticate(tokenOf('ada'), out[0]!)).toMatchObject({ scopes: ['sms:send'] });
    expect(await admin('set-key-scopes', out[0]!, '--scopes', '')).toEqual({ code: 0, out: [`API key ${prefix} has the scopes: (none)`], err: [] });
    expect(await admin('set-key-scopes', prefix, '--scopes', 'sims:read,sims:delete')).toEqual({
      code: 2,
      out: [],
      err: ['--scopes must be a comma-separated list of sims:read, sms:send, sims:manage'],
    });
    expect(await admin('set-key-scopes', 'nokey', '--scopes', 'sims:read')).toEqual({ code: 1, out: [], err: ['Refused: no API key with prefix "nokey"'] });
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

  it('answers a command named like a prototype member as an unknown command (exit 2)', async () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      const { code, out, err } = await admin(name);
      expect({ code, out, first: err[0]!.split('\n')[0] }).toEqual({ code: 2, out: [], first: `unknown command "${name}"` });
    }
  });

  describe('arguments by the one rule of ids, ICCIDs, statuses and amounts (shared/vocabulary/fields.ts)', () => {
    /** The CLI pointed at an endpoint nothing listens on: an argument checked before any read or write never reaches it. */
    const offline = async (...args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runAdmin([...args, '--table', tableName, '--endpoint', 'http://127.0.0.1:1', '--region', 'eu-west-2'], {
        env: {},
        out: (line) => out.push(line),
        err: (line) => err.push(line),
      });
      return { code, out, err };
    };
    const idRule = 'must be 1 to 64 characters of letters, digits, ".", "_" and "-", starting with a letter or a digit';
    const long = 'a'.repeat(3_000);

    it.each([
      ['issue-key --customer root#1', ['issue-key', '--customer', 'root#1'], `--customer ${idRule}`],
      ['issue-key --customer <3,000 characters>', ['issue-key', '--customer', long], `--customer ${idRule}`],
      ['issue-token --user __proto__', ['issue-token', '--user', '__proto__'], `--user ${idRule}`],
      ['webhook-secret --customer north east', ['webhook-secret', '--customer', 'north east'], `--customer ${idRule}`],
      ['rebuild-list-index --customer root#0', ['rebuild-list-index', '--customer', 'root#0'], `--customer ${idRule}`],
      ['deactivate-user bob#1', ['deactivate-user', 'bob#1'], `USER_ID ${idRule}`],
      ['activate-user <3,000 characters>', ['activate-user', long], `USER_ID ${idRule}`],
      ['set-sim 8944500000000001001 --customer north#1', ['set-sim', '8944500000000001001', '--customer', 'north#1'], `--customer ${idRule}`],
      ['set-sim 8944500000000001001 --status constructor', ['set-sim', '8944500000000001001', '--status', 'constructor'], '--status must be one of active, inactive, suspended, cancelled, stock, dispatched, trial'],
      ['set-sim 8944500000000001001 --data-used-mb 1234567890123', ['set-sim', '8944500000000001001', '--data-used-mb', '1234567890123'], '--data-used-mb must be a decimal string such as "12.50" (at most 12 integer digits and two decimal places)'],
      ['set-sim 8944500000000001001 --data-used-mb 1.234', ['set-sim', '8944500000000001001', '--data-used-mb', '1.234'], '--data-used-mb must be a decimal string such as "12.50" (at most 12 integer digits and two decimal places)'],
      ['set-sim SIM#1001 --status active', ['set-sim', 'SIM#1001', '--status', 'active'], 'ICCID must be 1 to 20 digits'],
      ['remove-sim <3,000 characters>', ['remove-sim', long], 'ICCID must be 1 to 20 digits'],
      ['resume-order constructor', ['resume-order', 'constructor'], 'ORDER_ID must be an order id (a lower-case UUID)'],
      ['resend-effect 8f14e45f-ceea-467f-a5b8-3b8f1ea6b5c1 --effect sms#1', ['resend-effect', '8f14e45f-ceea-467f-a5b8-3b8f1ea6b5c1', '--effect', 'sms#1'], `--effect ${idRule}`],
    ])('refuses %s with the rule, on one line, exit code 2, before any read or write', async (_label, args, line) => {
      expect(await offline(...args)).toEqual({ code: 2, out: [], err: [line] });
    });

    it('takes an amount of 12 integer digits and two decimals, and a customer by id; a name every object carries is no id', async () => {
      expect(await admin('set-sim', '8944500000000001002', '--data-used-mb', '999999999999.5', '--customer', 'south')).toEqual({
        code: 0, out: ['SIM 8944500000000001002: status suspended, data_used_mb 999999999999.50, customer south'], err: [],
      });
      expect(await item(key.sim(1002))).toMatchObject({ customer_id: 'south', customer_name: 'South Ltd', customer_path: ['root', 'south'], data_used_mb: '999999999999.50' });
      const reserved = 'must not be a name every JavaScript object carries (constructor, prototype, toString, valueOf, hasOwnProperty ...)';
      expect(await offline('issue-key', '--customer', 'constructor')).toEqual({ code: 2, out: [], err: [`--customer ${reserved}`] });
      expect(await offline('deactivate-user', 'toString')).toEqual({ code: 2, out: [], err: [`USER_ID ${reserved}`] });
      expect(await admin('issue-key', '--customer', 'Constructor')).toEqual({ code: 1, out: [], err: ['Refused: no customer with id "Constructor"'] });
    });
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

  it('names --region (and npm start) when no region is found anywhere and no local runtime answers, exit 2', async () => {
    // No AWS variable, no AWS config (HOME elsewhere), nothing at LOCAL_API_URL: what a new user has before npm start.
    const home = mkdtempSync(join(tmpdir(), 'admin-home-'));
    const bare = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_') && !['TABLE_NAME', 'DYNAMODB_ENDPOINT'].includes(name)));
    const run = promisify(execFile)(join(process.cwd(), 'node_modules/.bin/tsx'), ['admin/cli.ts', 'feed-rejections'], {
      env: { ...bare, HOME: home, LOCAL_API_URL: 'http://127.0.0.1:9' },
    });
    await expect(run).rejects.toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'No AWS region: give --region REGION (or set AWS_REGION) for a deployed table, or start the local runtime (npm start) and run this again: with no --table, --endpoint or --region the CLI finds it at http://127.0.0.1:9 (LOCAL_API_URL or PORT to look elsewhere).\n',
    });
  });
});
