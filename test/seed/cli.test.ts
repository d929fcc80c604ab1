import { dynamodbEndpoint } from '../support/dynamodb-lease';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { writeSeedFleetFile } from '../../bench/lib/seed-fleet-file';
import { tableExists } from '../../local/create-table';
import { createTestTable, testDynamoClient } from '../support/resources';
import { demoDocument, scanAll, smallDocument } from './fixtures';

const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `npx tsx local/seed-cli.ts ARGS` in the repository, as `npm run seed -- ARGS` would. */
const runCli = (args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn('npx', ['tsx', 'local/seed-cli.ts', ...args], {
      cwd: repositoryRoot,
      env: { ...process.env, AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', AWS_REGION: 'eu-west-2', TABLE_NAME: '', DYNAMODB_ENDPOINT: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });

describe('npm run seed', () => {
  let client: DynamoDBClient;
  let folder: string;
  const endpoint = dynamodbEndpoint();
  beforeAll(() => {
    client = testDynamoClient();
    folder = mkdtempSync(join(tmpdir(), 'seed-cli-'));
  });
  afterAll(() => {
    client.destroy();
    rmSync(folder, { recursive: true, force: true });
  });

  it('with --dry-run builds every item a new table would get, writes none, and says so with its peak memory', async () => {
    const file = join(folder, 'dry.json');
    writeFileSync(file, JSON.stringify(demoDocument()));
    const { code, stdout, stderr } = await runCli([file, '--dry-run']);
    expect({ code, stdout: stdout.replace(/; [\d.]+ s, peak memory \d+ MB\n$/, '; <time and memory>\n') }).toEqual({
      code: 0,
      stdout:
        `Dry run: 320 items from ${file} would be written into a new table ` +
        '(customer 5, user 5, bearer_token 6, api_key 4, data_bundle 1, plan 14, stock_unit 14, account 4, device 4, sim 30, sim_iccid 30, msisdn_claim 29, ' +
        'pool_contribution 7, sim_list_entry 104, sim_list_sequence 27, sim_list_meta 2, sim_list_counts 32, group_directory 2); nothing was written; <time and memory>\n',
    });
    expect(stderr).toMatch(/^Checked 30 SIMs and the rest of .*dry\.json in [\d.]+ s$/m);
    // No table is named or reached: one given with it is a usage error.
    const refused = await runCli([file, '--dry-run', '--table', 'x', '--endpoint', endpoint]);
    expect({ code: refused.code, stderr: refused.stderr.trim().split('\n').slice(-2) }).toEqual({
      code: 2,
      stderr: ['--dry-run writes to no table: it takes no --table, --endpoint or --create-table', 'usage: npm run seed -- FILE [--table NAME] [--region REGION] [--endpoint URL] [--create-table | --dry-run]'],
    });
  });

  it('creates the table with --create-table and loads the file into it', async () => {
    const file = join(folder, 'demo.json');
    writeFileSync(file, JSON.stringify(demoDocument()));
    const tableName = `cli-${Date.now()}`;
    const { code, stdout } = await runCli([file, '--table', tableName, '--endpoint', endpoint, '--create-table']);
    expect([code, stdout]).toEqual([
      0,
      `Created table ${tableName}\n` +
        `Loaded 320 items from ${file} into table ${tableName} at ${endpoint} ` +
        '(customer 5, user 5, bearer_token 6, api_key 4, data_bundle 1, plan 14, stock_unit 14, account 4, device 4, sim 30, sim_iccid 30, msisdn_claim 29, ' +
        'pool_contribution 7, sim_list_entry 104, sim_list_sequence 27, sim_list_meta 2, sim_list_counts 32, group_directory 2)\n',
    ]);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.TableStatus).toBe('ACTIVE');
    expect((await scanAll(client, tableName)).length).toBe(320);
  });

  it('refuses a broken file with the problem, exit code 1, and writes nothing', async () => {
    const tableName = await createTestTable();
    const broken = smallDocument();
    broken.sims[1]!.customer = 'nope';
    const file = join(folder, 'broken.json');
    writeFileSync(file, JSON.stringify(broken));
    const { code, stdout, stderr } = await runCli([file, '--table', tableName, '--endpoint', endpoint]);
    expect([code, stdout]).toEqual([1, '']);
    expect(stderr).toContain('Seed document refused: sims[1] (id 1002): customer "nope" does not exist\nNothing was written.\n');
    expect(await scanAll(client, tableName)).toEqual([]);
  });

  it('refuses a big file broken at its end as a whole, before it creates the table', async () => {
    const file = join(folder, 'fleet.json');
    await writeSeedFleetFile(file, { sims: 5_000, breakLast: 'unknown-customer' });
    const tableName = `cli-${Date.now()}-broken`;
    const { code, stdout, stderr } = await runCli([file, '--table', tableName, '--endpoint', endpoint, '--create-table']);
    expect([code, stdout, stderr.slice(stderr.indexOf('Seed document'))]).toEqual([
      1,
      '',
      'Seed document refused: sims[4999] (id 1005000): customer "nope" does not exist\nNothing was written.\n',
    ]);
    expect(await tableExists(client, tableName)).toBe(false);
  });

  it('refuses a file that is not JSON with the line and column, a table that does not exist, and a call without a file', async () => {
    const tableName = await createTestTable();
    const file = join(folder, 'not-json.json');
    writeFileSync(file, '{ "customers": [\n  {"id": "a", "name": "A", "parent": null, "sms_enabled": tru}\n]}');
    const [notJson, noTable, noFile] = await Promise.all([
      runCli([file, '--table', tableName, '--endpoint', endpoint]),
      runCli([file, '--table', 'no-such-table', '--endpoint', endpoint]),
      runCli(['--endpoint', endpoint]),
    ]);
    expect([notJson.code, notJson.stdout]).toEqual([1, '']);
    expect(notJson.stderr).toContain(
      `Seed document refused: the file ${file} is not valid JSON (unexpected 't' where a value should be at line 2, column 59 (in customers[0]))\nNothing was written.\n`,
    );
    expect([noTable.code, noTable.stdout]).toEqual([1, '']);
    expect(noTable.stderr).toContain(`Seed load failed: table no-such-table does not exist at ${endpoint} (--create-table creates it)\n`);
    expect([noFile.code, noFile.stdout]).toEqual([2, '']);
    expect(noFile.stderr).toContain('usage: npm run seed -- FILE [--table NAME] [--region REGION] [--endpoint URL] [--create-table | --dry-run]\n');
  });
});
