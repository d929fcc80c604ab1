import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The one item at a GSI1 key that names a single item (`gsi1.simByIccid(iccid)`,
 * `gsi1.messageByProviderId(id)`: partition and sort key both given), or undefined when there
 * is none or the item there is not of `type`. One query with Limit 1 (GSI1 is eventually
 * consistent).
 */
export const itemAtGsi1Key = async <T extends { type: string }>(
  table: { db: DynamoDBDocumentClient; tableName: string },
  at: { GSI1PK: string; GSI1SK: string },
  type: T['type'],
): Promise<T | undefined> => {
  const found = await table.db.send(
    new QueryCommand({
      TableName: table.tableName,
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK = :sk',
      ExpressionAttributeValues: { ':pk': at.GSI1PK, ':sk': at.GSI1SK },
      Limit: 1,
    }),
  );
  const item = found.Items?.[0] as T | undefined;
  return item?.type === type ? item : undefined;
};
