/**
 * The peer of issue #19's cold-start targets: the get-product function of
 * aws-samples/serverless-typescript-demo (one GetItem through the DynamoDB document client,
 * Middy, the Powertools logger, metrics and tracer), bundled by hand outside this repository
 * (docs/benchmarks.md, "The peer") and given to the benchmark with `--peer-bundle=PATH`.
 * Nothing of the peer is kept here but what running it needs: the table its handler reads
 * (partition key `id`, one product, the id its event asks for) and the variables of its
 * stack (TABLE_NAME and the Powertools settings its CDK stack sets), with its client sent to
 * DynamoDB Local through the SDK's own AWS_ENDPOINT_URL_DYNAMODB (its code builds
 * `new DynamoDBClient({})`) and credentials from the environment, as Lambda gives them.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CreateTableCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { coldCallCredentials } from './cold-call-backend';
import type { ColdFunction } from './cold-call';

/** A built peer bundle and the event its handler is invoked with. */
export interface PeerBundle {
  /** Its name in the figures. */
  name: string;
  /** The bundle (index.mjs). */
  file: string;
  event: APIGatewayProxyEvent;
  /** The product id the event asks for (`pathParameters.id`). */
  productId: string;
  /** The function it plays in Lambda's variables (the peer's stack: 256 MB; the timeout is Lambda's default). */
  function: ColdFunction;
}

/** Its name in the figures and the targets. */
export const peerName = 'peer: get-product (aws-samples/serverless-typescript-demo)';

const peerTable = 'peer-products';

/**
 * Reads `--peer-bundle=PATH` (the bundle's index.mjs, or the folder holding it) and its event
 * (`--peer-event=PATH`, default `event.json` beside the bundle). Throws with what is missing.
 */
export const readPeerBundle = (bundlePath: string, eventPath?: string): PeerBundle => {
  const given = resolve(bundlePath);
  const file = existsSync(given) && statSync(given).isDirectory() ? join(given, 'index.mjs') : given;
  if (!existsSync(file)) throw new Error(`--peer-bundle: ${file} does not exist (build it as docs/benchmarks.md, "The peer", says)`);
  const eventFile = resolve(eventPath ?? join(dirname(file), 'event.json'));
  if (!existsSync(eventFile)) throw new Error(`--peer-bundle: no event at ${eventFile} (give it with --peer-event=PATH)`);
  const event = JSON.parse(readFileSync(eventFile, 'utf8')) as APIGatewayProxyEvent;
  const productId = event.pathParameters?.id;
  if (!productId) throw new Error(`--peer-event: ${eventFile} has no pathParameters.id (get-product reads the product it names)`);
  return { name: peerName, file, event, productId, function: { name: 'get-product', memoryMb: 256, timeoutSeconds: 3 } };
};

/**
 * The peer's table in the backend's DynamoDB Local, with the product its event asks for, and
 * the variables its function gets (besides Lambda's own): its stack's, the credentials and the
 * endpoint.
 */
export const preparePeer = async (
  client: DynamoDBClient,
  dynamodb: { endpoint: string; trustedCa: Record<string, string> },
  peer: PeerBundle,
): Promise<Record<string, string>> => {
  await client.send(
    new CreateTableCommand({
      TableName: peerTable,
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
    }),
  );
  await client.send(
    new PutItemCommand({
      TableName: peerTable,
      Item: { id: { S: peer.productId }, name: { S: 'Bench product' }, price: { N: '9.99' } },
    }),
  );
  return {
    ...coldCallCredentials,
    ...dynamodb.trustedCa,
    AWS_ENDPOINT_URL_DYNAMODB: dynamodb.endpoint,
    TABLE_NAME: peerTable,
    // The environment of the peer's functions in its CDK stack.
    AWS_ACCOUNT_ID: '000000000000',
    POWERTOOLS_SERVICE_NAME: 'serverless-typescript-demo',
    POWERTOOLS_LOGGER_LOG_LEVEL: 'WARN',
    POWERTOOLS_LOGGER_SAMPLE_RATE: '0.01',
    POWERTOOLS_LOGGER_LOG_EVENT: 'true',
    POWERTOOLS_METRICS_NAMESPACE: 'AwsSamples',
  };
};
