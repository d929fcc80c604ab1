import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SimItem } from '../db/items';
import { gsi1Partition } from '../db/keys';

/**
 * The SIM with this ICCID, whoever owns it, or undefined: one GSI1 query (`ICCID#<iccid>`,
 * SK = SIM). Scope is the caller's to check (A3 answers an out-of-scope SIM as not found).
 */
export const readSimByIccid = async (
  table: { db: DynamoDBDocumentClient; tableName: string },
  iccid: string,
): Promise<SimItem | undefined> => {
  const found = await table.db.send(
    new QueryCommand({
      TableName: table.tableName,
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK = :sk',
      ExpressionAttributeValues: { ':pk': gsi1Partition.simByIccid(iccid), ':sk': 'SIM' },
      Limit: 1,
    }),
  );
  const sim = found.Items?.[0] as SimItem | undefined;
  return sim?.type === 'sim' ? sim : undefined;
};
