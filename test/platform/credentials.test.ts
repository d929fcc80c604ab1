import { dynamodbEndpoint } from '../support/dynamodb-lease';
import { once } from 'node:events';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { build, type Metafile } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { coldCallOnce, lambdaVariables, type ColdFunction } from '../../bench/lib/cold-call';
import { credentialProviderAlias, esbuildBuildOptions } from '../../infra/bundling';
import { makeRouteEvent } from '../../local/event-fixtures';
import { repositoryRoot } from '../../local/handler-loader';
import { loadSeedDocument } from '../../local/seed/load';
import { defaultProvider, missingCredentialsMessage } from '../../shared/adapters/aws/environment-credentials';
import { prepareClient } from '../../shared/adapters/aws/prepare-client';
import { allRoutes } from '../../shared/topology/routes';
import { apiKeyOf, areaASeed, tokenOf } from '../area-a/support/seed';
import { createTestTable, testDynamoClient } from '../support/resources';
import { tempDirs } from '../support/temp-dirs';

/**
 * The credentials of the deployed functions (infra/bundling.ts `credentialProviderAlias`,
 * shared/adapters/aws/environment-credentials.ts) and the clients made ready at init
 * (shared/adapters/aws/prepare-client.ts), against DynamoDB Local behind a recording proxy: a
 * plain HTTP server that forwards every request and keeps the headers that name the
 * credentials it was signed with (the access key in `Authorization`, `X-Amz-Security-Token`).
 */

interface RecordingProxy {
  endpoint: string;
  /** The signing headers of every request forwarded so far. */
  signed: Array<{ accessKey: string | undefined; sessionToken: string | undefined }>;
  stop(): Promise<void>;
}

const accessKeyOf = (headers: IncomingHttpHeaders): string | undefined => /Credential=([^/]+)\//.exec(String(headers.authorization ?? ''))?.[1];

const startRecordingProxy = async (target: string): Promise<RecordingProxy> => {
  const signed: RecordingProxy['signed'] = [];
  const upstream = new URL(target);
  const server: Server = createServer((incoming, answer) => {
    signed.push({ accessKey: accessKeyOf(incoming.headers), sessionToken: incoming.headers['x-amz-security-token'] as string | undefined });
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (reply) => {
        answer.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(answer);
      },
    );
    forwarded.on('error', () => answer.destroy());
    incoming.pipe(forwarded);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    signed,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

let proxy: RecordingProxy;
let tableName: string;
afterEach(() => {
  proxy.signed.length = 0;
});
beforeAll(async () => {
  proxy = await startRecordingProxy(dynamodbEndpoint());
  tableName = await createTestTable();
  const client = testDynamoClient();
  await loadSeedDocument(areaASeed(Date.now(), [{ id: 'cred', customer: 'root' }, { id: 'nocred', customer: 'root' }]), { client, tableName });
  client.destroy();
});
afterAll(async () => {
  await proxy?.stop();
});

describe('credentials inside the bundles', () => {
  const tempDir = tempDirs();
  let file: string;
  let metafile: Metafile;
  const getSim = allRoutes().find((route) => route.name === 'get-sim')!;
  const fn: ColdFunction = { name: 'get-sim', memoryMb: 1024, timeoutSeconds: 10 };
  const eventFor = (user: string) =>
    makeRouteEvent(getSim, { path: '/developer/api/sims/1001/', credentials: { bearerToken: tokenOf(user), apiKey: apiKeyOf('root') } });
  // A deployed function's environment, its DynamoDB requests sent to the proxy by the SDK's
  // own endpoint variable (DYNAMODB_ENDPOINT would give the client local credentials of its own).
  const functionEnv = (credentials: Record<string, string>) => ({
    ...lambdaVariables(fn), TABLE_NAME: tableName, AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint, ...credentials,
  });

  beforeAll(async () => {
    // Outside the repository, like /var/task: nothing resolves from its node_modules.
    file = join(tempDir('sim-service-bundles-credentials-'), 'get-sim', 'index.mjs');
    metafile = (await build({ ...esbuildBuildOptions(join(repositoryRoot, getSim.handler), file), metafile: true })).metafile;
  }, 60_000);

  it('leaves the default credential chain out: the environment provider instead of credential-provider-node and the STS/SSO clients', () => {
    const inputs = Object.keys(metafile.inputs);
    expect(credentialProviderAlias).toEqual({ '@aws-sdk/credential-provider-node': './shared/adapters/aws/environment-credentials.ts' });
    expect(inputs).toContain('shared/adapters/aws/environment-credentials.ts');
    expect(inputs.filter((input) => /node_modules\/@aws-sdk\/(credential-provider-(node|ini|sso|process|web-identity|login|http)|nested-clients|token-providers)\//.test(input))).toEqual([]);
    expect(inputs.filter((input) => input.includes('node_modules/@smithy/credential-provider-imds/'))).toEqual([]);
  });

  it('signs a bundled handler\'s calls with the credentials Lambda puts in the environment', async () => {
    const answer = await coldCallOnce(file, eventFor('cred'), fn, functionEnv({
      AWS_ACCESS_KEY_ID: 'ASIABUNDLEDTEST00001', AWS_SECRET_ACCESS_KEY: 'bundled-secret', AWS_SESSION_TOKEN: 'bundled-session-token',
    }));
    expect({ status: answer.status, id: JSON.parse(answer.body ?? '{}').id }).toEqual({ status: 200, id: 1001 });
    expect(proxy.signed.length).toBeGreaterThanOrEqual(2);
    expect(new Set(proxy.signed.map((entry) => `${entry.accessKey} ${entry.sessionToken}`))).toEqual(new Set(['ASIABUNDLEDTEST00001 bundled-session-token']));
  });

  it('fails a bundled handler\'s call without credentials in the environment, saying what it expects, and sends nothing', async () => {
    const answer = await coldCallOnce(file, eventFor('nocred'), fn, functionEnv({}));
    expect({ status: answer.status, body: JSON.parse(answer.body ?? '{}') }).toEqual({
      status: 500,
      body: { detail: 'An internal error occurred.', code: 'internal_error' },
    });
    const logged = answer.output
      .split('\n')
      .filter((line) => line.startsWith('{"level":"ERROR"'))
      .map((line) => JSON.parse(line) as { message: string; error: { name: string; message: string } });
    expect(logged.map(({ message, error }) => ({ message, error: { name: error.name, message: error.message } }))).toEqual([
      { message: 'unhandled error', error: { name: 'Error', message: missingCredentialsMessage } },
    ]);
    expect(proxy.signed).toEqual([]);
  });
});

describe('clients made ready at init', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });
  const useCredentials = (accessKeyId: string) => {
    delete process.env.AWS_PROFILE;
    delete process.env.AWS_SESSION_TOKEN;
    process.env.AWS_ACCESS_KEY_ID = accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = `${accessKeyId}-secret`;
  };
  const getItem = (client: DynamoDBClient) =>
    client.send(new GetItemCommand({ TableName: tableName, Key: { PK: { S: 'SIM#1001' }, SK: { S: 'SIM' } } }));

  it('reads the bundles\' environment credentials at init, before the first call', async () => {
    useCredentials('AKIDREADATINIT000001');
    const client = new DynamoDBClient({ region: 'eu-west-2', endpoint: proxy.endpoint, credentialDefaultProvider: defaultProvider });
    await prepareClient(client, { staticCredentials: false });
    useCredentials('AKIDCHANGEDLATER0001');
    await getItem(client);
    expect(proxy.signed.map((entry) => entry.accessKey)).toEqual(['AKIDREADATINIT000001']);
    client.destroy();
  });

  it('leaves the full default chain (the sources\') to the first call: it may ask the network', async () => {
    useCredentials('AKIDNOTREADATINIT001');
    const client = new DynamoDBClient({ region: 'eu-west-2', endpoint: proxy.endpoint });
    await prepareClient(client, { staticCredentials: false });
    useCredentials('AKIDREADATFIRSTCALL1');
    await getItem(client);
    expect(proxy.signed.map((entry) => entry.accessKey)).toEqual(['AKIDREADATFIRSTCALL1']);
    client.destroy();
  });

  it('fails a call of the bundles\' provider without environment credentials with the message that says what it expects', async () => {
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    const client = new DynamoDBClient({ region: 'eu-west-2', endpoint: proxy.endpoint, credentialDefaultProvider: defaultProvider });
    await prepareClient(client, { staticCredentials: false });
    await expect(getItem(client)).rejects.toThrow(missingCredentialsMessage);
    expect(proxy.signed).toEqual([]);
    client.destroy();
  });
});
