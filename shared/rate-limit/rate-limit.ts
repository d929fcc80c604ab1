import type { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../db/conditions';
import { key } from '../db/keys';
import { ApiError } from '../http/api-error';
import { pollInterval, windowLimits, type WindowLimit } from './limits';

/** What the rate limiter needs: the table and a clock (epoch milliseconds). */
export interface RateLimitDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  now: () => number;
}

/** One request to be counted. */
export interface RateLimitRequest {
  userId: string;
  /** The API key's customer. */
  customerId: string;
  /** A list request (A1): also subject to the minimum poll interval. */
  list: boolean;
}

/** The limiter's answer: the six X-RateLimit-* headers and, when refused, the 429 to answer. */
export interface RateLimitOutcome {
  headers: Record<string, string>;
  /** Present when the request is refused; it carries retry_after_seconds and Retry-After. */
  rejection?: ApiError;
}

const lastListAttribute = 'last_list_ms';
const expiresAtAttribute = 'expires_at';
const windowAttribute = /^([bmh])_(\d+)$/;

/** Counter attributes seen in earlier answers that belong to windows long past, per item. */
const staleSeen = new Map<string, Set<string>>();
const staleSeenMaxItems = 1_000;
const staleRemovedPerUpdate = 40;

const counterName = (limit: WindowLimit, index: number) => `${limit.attribute}_${index}`;

/**
 * Remembers the counter attributes of windows before the previous one, seen in an answer,
 * so that this container's next update of the item removes them too. Each update removes
 * the previous window's counters; this catches the ones left behind by gaps longer than one
 * window, which keeps the item small without any extra call. Best effort: bounded in size.
 */
const rememberStale = (itemId: string, attributes: Record<string, unknown>, indexes: Map<string, number>): void => {
  const stale = new Set<string>();
  for (const name of Object.keys(attributes)) {
    const match = windowAttribute.exec(name);
    if (match && Number(match[2]) < indexes.get(match[1]!)! - 1) stale.add(name);
  }
  staleSeen.delete(itemId);
  if (stale.size === 0) return;
  staleSeen.set(itemId, stale);
  if (staleSeen.size > staleSeenMaxItems) staleSeen.delete(staleSeen.keys().next().value!);
};

const headersFor = (counts: Map<WindowLimit, number>): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const limit of [...windowLimits].reverse()) {
    headers[`X-RateLimit-Limit-${limit.header}`] = String(limit.limit);
    headers[`X-RateLimit-Remaining-${limit.header}`] = String(Math.max(0, limit.limit - (counts.get(limit) ?? 0)));
  }
  return headers;
};

const countsIn = (item: Record<string, unknown>, indexes: Map<string, number>) =>
  new Map(
    windowLimits.map((limit) => {
      const value = item[counterName(limit, indexes.get(limit.attribute)!)];
      return [limit, typeof value === 'number' ? value : 0] as const;
    }),
  );

/**
 * Counts one request against the burst, minute and hour limits of a user with a customer
 * group's key (and, for a list request, the minimum poll interval), atomically, in ONE
 * conditional UpdateItem of one item per (user, customer):
 *
 * - each fixed window has its own counter attribute named after the window's index
 *   (`b_<index>`, `m_<index>`, `h_<index>`); the update ADDs 1 to the three current ones
 *   only if each is below its limit, and for a list request only if `last_list_ms` is at
 *   least 5 s old (then sets it to now); the previous windows' counters are removed in the
 *   same update and `expires_at` (TTL) lets an idle item disappear after its hour window;
 * - a refused request changes nothing (the condition failed, so nothing was written) and is
 *   answered 429 with the code of the limit that keeps it out longest, retry_after_seconds
 *   and Retry-After: whole seconds (at least 1) until it would be admitted;
 * - the remaining counts come from the item as updated (ALL_NEW) or, when refused, as it
 *   was (ALL_OLD on the failed condition), so no read is ever needed.
 */
export const consumeRateLimit = async (deps: RateLimitDeps, request: RateLimitRequest): Promise<RateLimitOutcome> => {
  const now = deps.now();
  const itemKey = key.rateLimit(request.userId, request.customerId);
  const itemId = `${itemKey.PK}\u0000${itemKey.SK}`;
  const indexes = new Map(windowLimits.map((limit) => [limit.attribute as string, Math.floor(now / limit.windowMs)]));
  const hourIndex = indexes.get('h')!;

  const names: Record<string, string> = { '#exp': expiresAtAttribute };
  const values: Record<string, unknown> = { ':one': 1, ':exp': Math.floor(((hourIndex + 1) * 3_600_000) / 1000) + 60 };
  const adds: string[] = [];
  const conditions: string[] = [];
  const current = new Set<string>();
  windowLimits.forEach((limit, position) => {
    const index = indexes.get(limit.attribute)!;
    names[`#c${position}`] = counterName(limit, index);
    values[`:l${position}`] = limit.limit;
    current.add(counterName(limit, index));
    adds.push(`#c${position} :one`);
    conditions.push(`(attribute_not_exists(#c${position}) OR #c${position} < :l${position})`);
  });
  const sets = ['#exp = :exp'];
  if (request.list) {
    names['#last'] = lastListAttribute;
    values[':now'] = now;
    values[':cutoff'] = now - pollInterval.ms;
    sets.push('#last = :now');
    conditions.push('(attribute_not_exists(#last) OR #last <= :cutoff)');
  }
  const removals = new Set<string>(windowLimits.map((limit) => counterName(limit, indexes.get(limit.attribute)! - 1)));
  for (const name of [...(staleSeen.get(itemId) ?? [])].slice(0, staleRemovedPerUpdate)) {
    if (!current.has(name)) removals.add(name);
  }
  const removeNames = [...removals].map((name, position) => {
    names[`#r${position}`] = name;
    return `#r${position}`;
  });

  try {
    const output = await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: itemKey,
        UpdateExpression: `ADD ${adds.join(', ')} SET ${sets.join(', ')} REMOVE ${removeNames.join(', ')}`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    const item = (output.Attributes ?? {}) as Record<string, unknown>;
    rememberStale(itemId, item, indexes);
    return { headers: headersFor(countsIn(item, indexes)) };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const old = numbersOf((error as ConditionalCheckFailedException).Item);
    rememberStale(itemId, old, indexes);
    const counts = countsIn(old, indexes);
    return { headers: headersFor(counts), rejection: rejection(now, request, old, counts, indexes) };
  }
};

/**
 * The number attributes of an item as DynamoDB returns it on a failed condition (raw
 * attribute values: the document client does not translate it); the rest is irrelevant here.
 */
const numbersOf = (raw: Record<string, { N?: string }> | undefined): Record<string, number> =>
  Object.fromEntries(
    Object.entries(raw ?? {}).flatMap(([name, value]) => (value?.N !== undefined ? [[name, Number(value.N)]] : [])),
  );

/** The 429 of a refused request: the limit that keeps it out longest (ties: the largest window). */
const rejection = (
  now: number,
  request: RateLimitRequest,
  old: Record<string, unknown>,
  counts: Map<WindowLimit, number>,
  indexes: Map<string, number>,
): ApiError => {
  let worst: { code: string; detail: string; waitMs: number } | undefined;
  const consider = (code: string, detail: string, waitMs: number) => {
    if (!worst || waitMs > worst.waitMs) worst = { code, detail, waitMs };
  };
  for (const limit of windowLimits) {
    if (counts.get(limit)! >= limit.limit) {
      consider(limit.code, limit.detail, (indexes.get(limit.attribute)! + 1) * limit.windowMs - now);
    }
  }
  const lastList = old[lastListAttribute];
  if (request.list && typeof lastList === 'number' && lastList > now - pollInterval.ms) {
    consider(pollInterval.code, pollInterval.detail, lastList + pollInterval.ms - now);
  }
  // A condition can only fail for one of the reasons above; if the item changed shape under
  // us, answer as a burst refusal rather than admit the request uncounted.
  const chosen = worst ?? { code: windowLimits[2]!.code, detail: windowLimits[2]!.detail, waitMs: 1_000 };
  const retryAfterSeconds = Math.max(1, Math.ceil(chosen.waitMs / 1000));
  return new ApiError(
    429,
    chosen.code,
    chosen.detail,
    { retry_after_seconds: retryAfterSeconds },
    { 'Retry-After': String(retryAfterSeconds) },
  );
};
