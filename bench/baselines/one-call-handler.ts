import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { key } from '../../shared/db/keys';
import type { RouteDefinition } from '../../shared/topology/routes';

/**
 * The one-call baseline of the latency and throughput sections (issue #11): an HTTP handler
 * that makes exactly one GetItem (the SIM item of `{sim}`) and answers it as JSON, with no
 * authentication, rate limit or middleware: the least any SIM read over the local gateway can
 * cost. Its client is built on first use the way shared/db/client.ts builds the service's
 * (same SDK, region, DynamoDB Local endpoint and marshalling), but is its own instance, read
 * from the runtime's environment here so that the baseline does not depend on how the
 * service wires its configuration.
 *
 * Bench only: it is in no route table, so neither the stack nor `npm start` serves it; the
 * benchmark hands `oneCallRoute` to its own runtime (startLocalRuntime's `benchRoutes`).
 */
let client: DynamoDBDocumentClient | undefined;

const dynamoDb = (): DynamoDBDocumentClient => {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  client ??= DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: process.env.AWS_REGION,
      ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  return client;
};

/** One GetItem of `SIM#{sim}`: 200 with the item, 404 `{detail, code}` when there is none. */
export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const output = await dynamoDb().send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: key.sim(Number(event.pathParameters?.sim)) }));
  if (!output.Item) return { statusCode: 404, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ detail: 'No such SIM.', code: 'not_found' }) };
  return { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(output.Item) };
};

/** The baseline's route, for the benchmark's runtime only (never in shared/topology/routes.ts). */
export const oneCallRoute: RouteDefinition = {
  name: 'bench-one-call',
  method: 'GET',
  path: '/bench/one-call/{sim}',
  handler: 'bench/baselines/one-call-handler.ts',
  area: 'storefront',
  json: false,
  access: { table: 'read' },
};
