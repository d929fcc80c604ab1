import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';

/** The items of one Query page, as the document client returns them. */
export type QueryPageItems = NonNullable<QueryCommandOutput['Items']>;

/**
 * The items of a Query page by page, following LastEvaluatedKey until the last page; the
 * caller may stop early (break), and no further page is read then. One loop for every
 * paged Query of the service, so none forgets a page.
 */
export async function* queryPages(
  db: DynamoDBDocumentClient,
  input: Omit<QueryCommandInput, 'ExclusiveStartKey'>,
): AsyncGenerator<QueryPageItems> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    yield page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
