/**
 * The shape checks of what the table's stream consumers read from an item's image before they
 * act on it (issue #31, point 5). A consumer must hold whatever is in the table, whoever wrote
 * it (an earlier version, a hand edit, a bug): where it addresses something by a field of the
 * image, the field must be what it claims. A `customer_path` stored as the string "acme"
 * would otherwise be read as the path a → c → m → e, and its events addressed to those
 * customers. An image that fails a check makes the consumer throw MalformedItem, and the
 * record is set aside with that reason (shared/queues/stream-failures.ts).
 */
import type { SimItem } from './items';

/** An item of the stream whose fields are not what its type promises: the content's fault, never an outage. */
export class MalformedItem extends Error {
  override name = 'MalformedItem';
}

/** How an item is named in a MalformedItem's message: its key when it has one. */
const itemName = (item: Record<string, unknown>): string =>
  `${typeof item.type === 'string' ? item.type : 'item'} ${typeof item.PK === 'string' ? item.PK : '(no PK)'}`;

/** A value as it is quoted in a reason: its type, and a short JSON of it. */
const shown = (value: unknown): string => {
  if (value === undefined) return 'absent';
  const json = JSON.stringify(value) ?? String(value);
  return `${Array.isArray(value) ? 'a list' : typeof value}${json.length > 60 ? ` ${json.slice(0, 60)}…` : ` ${json}`}`;
};

/**
 * `item[field]` as a customer path: a non-empty list of non-empty strings (customer ids, the
 * top-level group first). Throws MalformedItem otherwise.
 */
export const customerPathOf = (item: Record<string, unknown>, field: string): string[] => {
  const path = item[field];
  if (!Array.isArray(path) || path.length === 0 || !path.every((id) => typeof id === 'string' && id !== '')) {
    throw new MalformedItem(`${itemName(item)}: ${field} must be a non-empty list of customer ids, not ${shown(path)}`);
  }
  return path as string[];
};

/** `item[field]` as a non-empty string; throws MalformedItem otherwise. */
export const textOf = (item: Record<string, unknown>, field: string): string => {
  const value = item[field];
  if (typeof value !== 'string' || value === '') throw new MalformedItem(`${itemName(item)}: ${field} must be a non-empty string, not ${shown(value)}`);
  return value;
};

/**
 * An unmarshalled `sim` image as a SimItem, once the fields the consumers address by are
 * checked: `id` a positive integer, `customer_path` a list of customer ids, `customer_id` and
 * `status` strings. Other fields are read where they are used (an amount that is not a decimal
 * throws there: ../vocabulary/amounts.ts).
 */
export const simImageOf = (item: Record<string, unknown>): SimItem => {
  if (typeof item.id !== 'number' || !Number.isSafeInteger(item.id) || item.id <= 0) {
    throw new MalformedItem(`${itemName(item)}: id must be a positive integer, not ${shown(item.id)}`);
  }
  customerPathOf(item, 'customer_path');
  textOf(item, 'customer_id');
  textOf(item, 'status');
  return item as unknown as SimItem;
};
