import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SimItem } from '../db/items';
import { gsi1 } from '../db/keys';
import { itemAtGsi1Key } from '../db/gsi1-item';

/**
 * The SIM with this ICCID, whoever owns it, or undefined: one GSI1 query (`ICCID#<iccid>`,
 * SK = SIM). Scope is the caller's to check (A3 answers an out-of-scope SIM as not found).
 */
export const readSimByIccid = (table: { db: DynamoDBDocumentClient; tableName: string }, iccid: string): Promise<SimItem | undefined> =>
  itemAtGsi1Key<SimItem>(table, gsi1.simByIccid(iccid), 'sim');
