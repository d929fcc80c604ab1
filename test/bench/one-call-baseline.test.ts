import { dynamodbEndpoint } from '../support/dynamodb-lease';
import { readFileSync } from 'node:fs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { oneCallRoute } from '../../bench/baselines/one-call-handler';
import { resolveRoute } from '../../local/gateway';
import { stackFunctions } from '../../local/bundle-build';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';
import { allRoutes } from '../../shared/topology/routes';
import { testDynamoClient } from '../support/resources';

const demoSeed: unknown = JSON.parse(readFileSync(new URL('../../local/demo-seed.json', import.meta.url), 'utf8'));

let runtime: LocalRuntime;

beforeAll(async () => {
  runtime = await startLocalRuntime({
    dynamodbEndpoint: dynamodbEndpoint(),
    sqsEndpoint: inject('sqsEndpoint'),
    seed: demoSeed,
    quiet: true,
    benchRoutes: [oneCallRoute],
  });
});

afterAll(async () => {
  await runtime?.stop();
});

describe('the one-call baseline of the benchmark', () => {
  it('answers the SIM item it reads (its one GetItem) through the runtime gateway', async () => {
    const stored = await DynamoDBDocumentClient.from(testDynamoClient()).send(
      new GetCommand({ TableName: runtime.tableName, Key: { PK: 'SIM#1001', SK: 'SIM' } }),
    );
    const response = await fetch(`${runtime.baseUrl}/bench/one-call/1001`);
    expect({ status: response.status, type: response.headers.get('content-type'), body: await response.json() }).toEqual({
      status: 200,
      type: 'application/json',
      body: stored.Item,
    });
  });

  it('answers a SIM that does not exist with the JSON 404', async () => {
    const response = await fetch(`${runtime.baseUrl}/bench/one-call/999999`);
    expect({ status: response.status, body: await response.json() }).toEqual({ status: 404, body: { detail: 'No such SIM.', code: 'not_found' } });
  });

  it('is in no route table: the stack does not deploy it and npm start serves the default fallback there', () => {
    expect(allRoutes().filter((route) => route.handler.startsWith('bench/') || route.path.startsWith('/bench/'))).toEqual([]);
    expect(stackFunctions().filter((fn) => fn.handler.startsWith('bench/'))).toEqual([]);
    expect(resolveRoute(allRoutes(), 'GET', '/bench/one-call/1001')?.route.name).toBe('default-fallback');
  });
});
