import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** What the SIM reads need: the single table and a clock (epoch milliseconds). */
export interface SimDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  now: () => number;
}

/** Who is asking: the customer of the API key, root of the scope. */
export interface SimScope {
  customerId: string;
  /** The key's customer path, top-level group first (ends with customerId). */
  customerPath: string[];
}
