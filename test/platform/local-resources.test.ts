import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { tableDefinition } from '../../shared/db/table';
import { queueDefinitions, visibilityTimeoutSeconds } from '../../shared/topology/queues';
import { createTestQueues, createTestTable, testDynamoClient, testSqsClient } from '../support/resources';

describe('local resources', () => {
  it('creates the table with the shared key schema, indexes and TTL', async () => {
    const tableName = await createTestTable();
    const client = testDynamoClient();
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.KeySchema).toEqual([
      { AttributeName: 'PK', KeyType: 'HASH' },
      { AttributeName: 'SK', KeyType: 'RANGE' },
    ]);
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort()).toEqual(
      tableDefinition.globalSecondaryIndexes.map((index) => index.indexName).sort(),
    );
    client.destroy();
  });

  it('creates every queue with its dead-letter queue, redrive count and visibility timeout', async () => {
    const queues = await createTestQueues();
    const client = testSqsClient();
    for (const definition of queueDefinitions) {
      const { Attributes } = await client.send(
        new GetQueueAttributesCommand({ QueueUrl: queues[definition.name].url, AttributeNames: ['All'] }),
      );
      expect(Attributes?.VisibilityTimeout).toBe(String(visibilityTimeoutSeconds(definition)));
      expect(Number(JSON.parse(Attributes?.RedrivePolicy ?? '{}').maxReceiveCount)).toBe(definition.maxReceiveCount);
    }
    client.destroy();
  });
});
