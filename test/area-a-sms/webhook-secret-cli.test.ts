import { beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../admin/cli';
import { loadSeedDocument } from '../../local/seed/load';
import { customerWebhookSecret } from '../../shared/callbacks/signing';
import { createTestTable, localServiceEnv, testDynamoClient } from '../support/resources';

let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  const tableName = await createTestTable();
  const client = testDynamoClient();
  await loadSeedDocument({ customers: [{ id: 'acme', name: 'Acme Ltd', parent: null, sms_enabled: true }] }, { client, tableName });
  client.destroy();
  const local = localServiceEnv(tableName);
  // No AWS keys: the CLI then uses DynamoDB Local's dummy credentials itself.
  env = { TABLE_NAME: tableName, DYNAMODB_ENDPOINT: local.DYNAMODB_ENDPOINT, CALLBACK_SIGNING_SECRET: 'cli-master' };
});

const run = async (args: string[], given = env) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(args, { env: given, out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out, err };
};

describe('npm run admin -- webhook-secret', () => {
  it("prints the customer's receipt signing secret, the one the forwarder signs with", async () => {
    expect(await run(['webhook-secret', '--customer', 'acme'])).toEqual({
      code: 0,
      out: [customerWebhookSecret('cli-master', 'acme')],
      err: ['Receipt signing secret of customer acme (verify webhook-signature with it):'],
    });
  });

  it('refuses an unknown customer, a missing master secret, and a missing --customer', async () => {
    expect(await run(['webhook-secret', '--customer', 'nobody'])).toEqual({ code: 1, out: [], err: ['Refused: unknown customer nobody'] });
    const { CALLBACK_SIGNING_SECRET: _unset, ...withoutSecret } = env;
    expect(await run(['webhook-secret', '--customer', 'acme'], withoutSecret)).toEqual({
      code: 1,
      out: [],
      err: ['Refused: CALLBACK_SIGNING_SECRET is not set (nor CALLBACK_SIGNING_SECRET_SECRET_ARN).'],
    });
    const usage = await run(['webhook-secret']);
    expect(usage.code).toBe(2);
    expect(usage.err[0]).toMatch(/^webhook-secret needs --customer CUSTOMER_ID\nusage: /);
  });
});
