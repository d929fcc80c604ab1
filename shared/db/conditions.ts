import { UpdateCommand, type DeleteCommand, type DynamoDBDocumentClient, type PutCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';

/**
 * Conditional writes: uniqueness, counters and state moves are conditional writes that may
 * lose to another writer, and losing is an answer, not an error.
 */

const nameOf = (error: unknown): unknown => (error as { name?: unknown } | null | undefined)?.name;

/**
 * True when a write was refused because its ConditionExpression did not hold (DynamoDB's
 * `ConditionalCheckFailedException`). Told by the error's name, not by `instanceof`, so that
 * it holds whichever copy of the AWS SDK threw it.
 */
export const isConditionFailure = (error: unknown): boolean => nameOf(error) === 'ConditionalCheckFailedException';

/**
 * True when a TransactWriteItems call was cancelled as a whole (`TransactionCanceledException`:
 * a failed condition or a conflicting transaction on one of its items; nothing was written).
 * Told by the error's name, so that it holds whichever copy of the AWS SDK threw it.
 */
export const isTransactionCanceled = (error: unknown): boolean => nameOf(error) === 'TransactionCanceledException';

/**
 * The per-item codes of a cancelled transaction, in the order of its items (`ConditionalCheckFailed`,
 * `None`, `TransactionConflict` ...); empty for any other error.
 */
export const cancellationCodes = (error: unknown): (string | undefined)[] =>
  isTransactionCanceled(error) ? ((error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map((reason) => reason.Code) : [];

/**
 * Sends one conditional Put, Update or Delete that may lose to another writer: true when it
 * was written, false when its condition failed (nothing was written). Any other error is
 * thrown as it came.
 */
export const sendUnlessConditionFails = async (
  db: DynamoDBDocumentClient,
  command: PutCommand | UpdateCommand | DeleteCommand,
): Promise<boolean> => {
  try {
    // send() infers its types from one command class; a union of them does not fit that
    // inference, so the command is typed as one of them. The call itself is the same.
    await db.send(command as UpdateCommand);
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/**
 * One conditional UpdateItem of an item of `table` that may lose to another writer: true when
 * it was written, false when its condition failed (sendUnlessConditionFails).
 */
export const updateUnlessConditionFails = (
  table: { db: DynamoDBDocumentClient; tableName: string },
  update: Omit<UpdateCommandInput, 'TableName'>,
): Promise<boolean> => sendUnlessConditionFails(table.db, new UpdateCommand({ TableName: table.tableName, ...update }));

/**
 * One conditional UpdateItem of an item of `table` that may lose to another writer: the item
 * as it is after the update (ReturnValues ALL_NEW), or undefined when its condition failed.
 * Any other error is thrown as it came.
 */
export const updatedUnlessConditionFails = async <T>(
  table: { db: DynamoDBDocumentClient; tableName: string },
  update: Omit<UpdateCommandInput, 'TableName' | 'ReturnValues'>,
): Promise<T | undefined> => {
  try {
    const updated = await table.db.send(new UpdateCommand({ TableName: table.tableName, ...update, ReturnValues: 'ALL_NEW' }));
    return updated.Attributes as T;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
};
