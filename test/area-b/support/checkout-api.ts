import { BatchWriteCommand, GetCommand, QueryCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { OrderItem, StockUnitItem } from '../../../shared/db/items';
import { key, partition } from '../../../shared/db/keys';
import { exchange, parsedBody, testResponse } from '../../support/request';
import { testDocumentClient } from '../../support/resources';

/** The service token the Area B tests configure. */
export const serviceToken = 'storefront_test_9fK2mQ7xR4vL8pW3';
/** A Stripe test key as the SDK expects its shape. */
export const stripeTestKey = 'sk_test_51AreaBCheckoutTests000000000000';

/** An HTTP answer, parsed. */
export interface HttpAnswer {
  status: number;
  contentType: string | null;
  headers: Headers;
  text: string;
  body: unknown;
}

/** POSTs a JSON body (or raw text) to the local API with the service token unless `headers` says otherwise. */
export const post = async (
  baseUrl: string,
  path: string,
  body: unknown,
  headers: Record<string, string | undefined> = {},
): Promise<HttpAnswer> => {
  const merged: Record<string, string> = { 'Content-Type': 'application/json', Authorization: `Bearer ${serviceToken}` };
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) delete merged[name];
    else merged[name] = value;
  }
  const answer = await exchange(baseUrl, path, { method: 'POST', headers: merged, body: typeof body === 'string' ? body : JSON.stringify(body) });
  // As every suite sees an answer, but a body that is not JSON is undefined here (its text is `text`).
  return { ...testResponse(answer), text: answer.rawBody, body: parsedBody(answer.rawBody, undefined) };
};

/** The whole error answer every Area B error must be. */
export const errorAnswer = (status: number, code: string, detail: string) => ({
  status,
  contentType: 'application/json',
  body: { detail, code },
});

/** The parts of an answer compared against errorAnswer. */
export const errorParts = (answer: HttpAnswer) => ({ status: answer.status, contentType: answer.contentType, body: answer.body });

/** A UUID (v4). */
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A document client on the run's DynamoDB Local. */
export const documents = (): DynamoDBDocumentClient =>
  testDocumentClient();

/** One order as stored. */
export const readOrder = async (db: DynamoDBDocumentClient, tableName: string, orderId: string): Promise<OrderItem | undefined> =>
  (await db.send(new GetCommand({ TableName: tableName, Key: key.order(orderId), ConsistentRead: true }))).Item as
    | OrderItem
    | undefined;

/** Every stock unit of a kind as stored. */
export const readStock = async (db: DynamoDBDocumentClient, tableName: string, kind: string): Promise<StockUnitItem[]> => {
  const { Items } = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': partition.stock(kind) },
      ConsistentRead: true,
    }),
  );
  return (Items ?? []) as StockUnitItem[];
};

/** Replaces all stock of a kind with these free units. */
export const resetStock = async (
  db: DynamoDBDocumentClient,
  tableName: string,
  kind: StockUnitItem['kind'],
  iccids: string[],
): Promise<void> => {
  const writes = async (requests: Record<string, unknown>[]) => {
    const batches = [];
    for (let start = 0; start < requests.length; start += 25) batches.push(requests.slice(start, start + 25));
    await Promise.all(
      batches.map(async (batch) => {
        let pending = batch;
        while (pending.length > 0) {
          const output = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
          pending = (output.UnprocessedItems?.[tableName] ?? []) as Record<string, unknown>[];
        }
      }),
    );
  };
  const existing = await readStock(db, tableName, kind);
  await writes(existing.map((unit) => ({ DeleteRequest: { Key: key.stockUnit(kind, unit.iccid) } })));
  await writes(
    iccids.map((iccid) => {
      const item: StockUnitItem = { ...key.stockUnit(kind, iccid), type: 'stock_unit', iccid, kind };
      return { PutRequest: { Item: item } };
    }),
  );
};

/** Units of a kind that an order holds. */
export const heldBy = (units: StockUnitItem[], orderId: string) => units.filter((unit) => unit.held_by === orderId);
