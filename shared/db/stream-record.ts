/**
 * A record of the table's DynamoDB stream (NEW_AND_OLD_IMAGES) as the domain reads it: the
 * fields of a Lambda stream event's record that it uses, the images still marshalled. The
 * record of aws-lambda's DynamoDBStreamEvent has this shape, so the stream consumers
 * (shared/routes/) pass theirs as they are and the Lambda event types stay with them.
 */
export interface TableStreamRecord {
  /** Unique per change, and the same when a failed batch is read again. */
  eventID?: string | undefined;
  eventName?: 'INSERT' | 'MODIFY' | 'REMOVE' | undefined;
  dynamodb?:
    | {
        /** Seconds since the epoch. */
        ApproximateCreationDateTime?: number | undefined;
        NewImage?: unknown;
        OldImage?: unknown;
      }
    | undefined;
}
