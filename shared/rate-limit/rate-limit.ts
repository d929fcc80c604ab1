import type { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../db/conditions';
import { key } from '../db/keys';
import { ApiError } from '../errors/api-error';
import { pollInterval, windowLimits, type WindowLimit } from './limits';
import {
  lastListAttribute,
  planRequest,
  remainingOf,
  slotCountAttribute,
  slotTimeAttribute,
  type LimiterState,
  type Refusal,
  type SlotChoice,
} from './slots';

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

const expiresAtAttribute = 'expires_at';

/**
 * Conditional writes one request may try before it is answered 429 anyway. Each failed try
 * means another request of the same caller took a slot meanwhile, so this is reached only by
 * far more concurrent requests than the limits admit.
 */
export const maxWriteAttempts = 16;

/** The item of each (user, customer) as this container last saw it: a hint, never trusted alone. */
const lastSeen = new Map<string, LimiterState>();
const lastSeenMaxItems = 1_000;

const remember = (itemId: string, state: LimiterState): void => {
  lastSeen.delete(itemId);
  lastSeen.set(itemId, state);
  if (lastSeen.size > lastSeenMaxItems) lastSeen.delete(lastSeen.keys().next().value!);
};

/** Number attributes of an item, whether the document client unmarshalled it or not (ALL_OLD). */
const numbersOf = (item: Record<string, unknown> | undefined): LimiterState => {
  const numbers: Record<string, number> = {};
  for (const [name, value] of Object.entries(item ?? {})) {
    if (typeof value === 'number') numbers[name] = value;
    else if (typeof (value as { N?: unknown } | null)?.N === 'string') numbers[name] = Number((value as { N: string }).N);
  }
  return numbers;
};

const headersFor = (state: LimiterState, limits: readonly WindowLimit[], now: number): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const limit of [...limits].reverse()) {
    headers[`X-RateLimit-Limit-${limit.header}`] = String(limit.limit);
    headers[`X-RateLimit-Remaining-${limit.header}`] = String(remainingOf(state, limit, now));
  }
  return headers;
};

const rejectionOf = (refusal: Refusal): ApiError => {
  const retryAfterSeconds = Math.max(1, Math.ceil(refusal.waitMs / 1000));
  return new ApiError(
    429,
    refusal.code,
    refusal.detail,
    { retry_after_seconds: retryAfterSeconds },
    { 'Retry-After': String(retryAfterSeconds) },
  );
};

/** The conditional UpdateItem that admits one request into the chosen slots, or changes nothing. */
const admitCommand = (
  tableName: string,
  itemKey: Record<string, string>,
  choices: SlotChoice[],
  now: number,
  list: boolean,
): UpdateCommand => {
  const names: Record<string, string> = { '#exp': expiresAtAttribute };
  const values: Record<string, unknown> = { ':now': now, ':exp': Math.ceil(now / 1000) + 3_660 };
  const sets = ['#exp = :exp'];
  const adds: string[] = [];
  const conditions: string[] = [];
  choices.forEach(({ limit, index, kind }, position) => {
    const time = `#t${position}`;
    const count = `#n${position}`;
    names[time] = slotTimeAttribute(limit, index);
    values[`:cut${position}`] = now - limit.windowMs;
    sets.push(`${time} = :now`);
    if (kind === 'claim') {
      conditions.push(`(attribute_not_exists(${time}) OR ${time} <= :cut${position})`);
      if (limit.perSlot > 1) {
        names[count] = slotCountAttribute(limit, index);
        values[':one'] = 1;
        sets.push(`${count} = :one`);
      }
    } else {
      names[count] = slotCountAttribute(limit, index);
      values[':one'] = 1;
      values[`:per${position}`] = limit.perSlot;
      conditions.push(`(${time} > :cut${position} AND ${count} < :per${position})`);
      adds.push(`${count} :one`);
    }
  });
  if (list) {
    names['#last'] = lastListAttribute;
    values[':pollCut'] = now - pollInterval.ms;
    sets.push('#last = :now');
    conditions.push('(attribute_not_exists(#last) OR #last <= :pollCut)');
  }
  return new UpdateCommand({
    TableName: tableName,
    Key: itemKey,
    UpdateExpression: `SET ${sets.join(', ')}${adds.length > 0 ? ` ADD ${adds.join(', ')}` : ''}`,
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ReturnValues: 'ALL_NEW',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
};

/**
 * Whether this container's last view of the (user, customer) item would admit `request` now:
 * a forecast, never a decision (consumeRateLimit decides). A route uses it to start its read
 * beside the rate-limit write only when the write will most likely admit the request, so that
 * a request this container already knows to be over a limit makes no business call.
 */
export const expectsAdmission = (
  deps: Pick<RateLimitDeps, 'now'>,
  request: RateLimitRequest,
  limits: readonly WindowLimit[] = windowLimits,
): boolean => {
  const itemKey = key.rateLimit(request.userId, request.customerId);
  const state = lastSeen.get(`${itemKey.PK}\u0000${itemKey.SK}`) ?? {};
  return planRequest(state, limits, deps.now(), request.list).admit;
};

/**
 * Counts one request against the burst, minute and hour limits of a user with a customer
 * group's key (and, for a list request, the minimum poll interval) over TRAILING windows:
 * no 10 seconds ever hold more than 10 admitted requests, no minute more than 60, no hour more
 * than 1,500, whatever the concurrency and the position of the clock (docs/area-a.md).
 *
 * One item per (user, customer) holds a ring of slots per limit (shared/rate-limit/slots.ts).
 * A request plans its slots on the item as this container last saw it and takes them in ONE
 * conditional UpdateItem whose condition says each chosen slot is still free (or still has
 * room), so it is admitted only if the item really allows it. When the condition fails, the
 * item as it was (ALL_OLD) comes back with the failure and the request plans again on it;
 * only a plan made on such a fresh item can refuse (a plan on a stale item is checked with
 * one consistent read first). So a request costs one write when this container's view is
 * current (the usual case: one user's requests mostly reach warm containers in turn), two
 * calls when it is not, and more only while other requests of the same caller win slots.
 * A refused request writes nothing. The headers say what the next request would see; the
 * 429's Retry-After is the exact time until this request would be admitted.
 */
export const consumeRateLimit = async (
  deps: RateLimitDeps,
  request: RateLimitRequest,
  limits: readonly WindowLimit[] = windowLimits,
): Promise<RateLimitOutcome> => {
  const itemKey = key.rateLimit(request.userId, request.customerId);
  const itemId = `${itemKey.PK}\u0000${itemKey.SK}`;
  let state = lastSeen.get(itemId) ?? {};
  let fresh = false;
  let attempts = 0;
  for (;;) {
    const now = deps.now();
    const plan = planRequest(state, limits, now, request.list);
    if (!plan.admit) {
      if (fresh) return { headers: headersFor(state, limits, now), rejection: rejectionOf(plan.refusal) };
      const read = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: itemKey, ConsistentRead: true }));
      state = numbersOf(read.Item);
      fresh = true;
      remember(itemId, state);
      continue;
    }
    attempts += 1;
    try {
      const output = await deps.db.send(admitCommand(deps.tableName, itemKey, plan.choices, now, request.list));
      state = numbersOf(output.Attributes);
      remember(itemId, state);
      return { headers: headersFor(state, limits, now) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      state = numbersOf((error as ConditionalCheckFailedException).Item as Record<string, unknown> | undefined);
      fresh = true;
      remember(itemId, state);
      if (attempts >= maxWriteAttempts) {
        const burst = limits[limits.length - 1]!;
        return {
          headers: headersFor(state, limits, now),
          rejection: rejectionOf({ code: burst.code, detail: burst.detail, waitMs: 1_000 }),
        };
      }
    }
  }
};
