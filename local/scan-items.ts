import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Every item of one `type` in the table (all Scan pages), with only `attributes` read when
 * they are given. For tooling, never for the service (which never scans): the local runtime's
 * own views (the console, the inbox's secrets) over a small local table, and, through
 * topLevelCustomers, the admin CLI's one-off commands, which scan any table, a deployed one
 * included, reading the whole table once (a Scan's read units are the table's size).
 */
export const scanItemsOfType = async <T>(
  table: { db: DynamoDBDocumentClient; tableName: string },
  type: string,
  attributes?: string[],
): Promise<T[]> => {
  const found: T[] = [];
  const names = Object.fromEntries((attributes ?? []).map((name, index) => [`#a${index}`, name]));
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.db.send(
      new ScanCommand({
        TableName: table.tableName,
        FilterExpression: '#type = :type',
        ...(attributes ? { ProjectionExpression: Object.keys(names).join(', ') } : {}),
        ExpressionAttributeNames: { '#type': 'type', ...names },
        ExpressionAttributeValues: { ':type': type },
        ExclusiveStartKey: startKey,
      }),
    );
    found.push(...((page.Items ?? []) as T[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return found;
};

/**
 * The ids of the top-level customer groups of a table (a Scan: for the admin CLI's one-off
 * commands over every group, such as rebuild-list-index).
 */
export const topLevelCustomers = async (table: { db: DynamoDBDocumentClient; tableName: string }): Promise<string[]> =>
  (await scanItemsOfType<{ id: string; parent: string | null }>(table, 'customer', ['id', 'parent']))
    .filter((customer) => customer.parent === null)
    .map((customer) => customer.id)
    .sort();
