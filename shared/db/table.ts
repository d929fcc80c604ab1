/**
 * The single DynamoDB table as plain data: key schema, secondary indexes and TTL attribute.
 * The CDK stack and the local runtime both create the table from this, so they never differ.
 */
export interface IndexDefinition {
  indexName: string;
  partitionKey: string;
  sortKey: string;
  /** ALL copies every attribute; KEYS_ONLY keeps the index small. */
  projection: 'ALL' | 'KEYS_ONLY';
}

/** The service table's shape. */
export const tableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Epoch seconds; DynamoDB deletes the item some time after it passes. */
  timeToLiveAttribute: 'expires_at',
  /**
   * The table's stream: both images of every change, read by the stream consumers
   * (shared/topology/streams.ts) to derive lifecycle events from the data (issue #15).
   */
  streamView: 'NEW_AND_OLD_IMAGES',
  globalSecondaryIndexes: [
    /** Lookups by an alternative identifier: ICCID → SIM, customer name → customer, user → tokens. */
    { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK', projection: 'ALL' },
  ] as IndexDefinition[],
} as const;

/** A partition and sort key as DynamoDB declares them (a KeySchema of CreateTable and of CloudFormation alike). */
export const keySchema = (partitionKey: string, sortKey: string) => [
  { AttributeName: partitionKey, KeyType: 'HASH' as const },
  { AttributeName: sortKey, KeyType: 'RANGE' as const },
];

/** The table's global secondary indexes as DynamoDB declares them (CreateTable and CloudFormation alike). */
export const globalSecondaryIndexDeclarations = () =>
  tableDefinition.globalSecondaryIndexes.map((index) => ({
    IndexName: index.indexName,
    KeySchema: keySchema(index.partitionKey, index.sortKey),
    Projection: { ProjectionType: index.projection },
  }));
