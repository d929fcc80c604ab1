import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { SimItem } from '../db/items';
import { simImageOf } from '../db/stream-images';
import type { TableStreamRecord } from '../db/stream-record';
import type { SimChangeRecord } from './maintain';

const simImage = (value: unknown): SimItem | undefined => {
  if (!value) return undefined;
  const item = unmarshall(value as Record<string, AttributeValue>);
  return item.type === 'sim' ? simImageOf(item) : undefined;
};

/**
 * A stream record as a SIM change (old and new SIM images; other items are none). Throws
 * MalformedItem (../db/stream-images.ts) for a SIM image whose id or customer path is not one.
 */
export const simChangeOf = (record: TableStreamRecord): SimChangeRecord => ({
  old: simImage(record.dynamodb?.OldImage),
  new: simImage(record.dynamodb?.NewImage),
});
