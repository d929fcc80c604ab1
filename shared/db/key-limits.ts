import { isCarriableText, utf8Length } from '../text/characters';

/** DynamoDB's largest partition key value (table and index keys alike), in UTF-8 bytes. */
export const maxPartitionKeyBytes = 2048;

/**
 * True when a partition key value built from untrusted text (shared/db/keys.ts) can be sent
 * to DynamoDB at all: at most 2,048 bytes of UTF-8 and carriable text (a lone surrogate would
 * be stored as `?`, so two different values would be one key). A value that fails can name
 * no stored item, so the caller answers "not found" without a request (DynamoDB would refuse
 * it with a ValidationException, a 500).
 */
export const isUsablePartitionKey = (value: string): boolean => utf8Length(value) <= maxPartitionKeyBytes && isCarriableText(value);
