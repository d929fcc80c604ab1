import { logger } from '../observability/logger';
import { createHash, randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, sendUnlessConditionFails } from '../db/conditions';
import type { IdempotencyItem } from '../db/items';
import { key } from '../db/keys';
import { ApiError } from '../errors/api-error';
import { sleep } from '../time/sleep';

/** Where idempotency records live and how long things take. */
export interface IdempotencyStore {
  db: DynamoDBDocumentClient;
  tableName: string;
  /** The clock (tests pass their own). */
  now: () => Date;
}

/** A response kept for replay. */
export interface StoredResponse {
  status: number;
  /** The JSON body exactly as first sent. */
  body: string;
  orderId?: string;
}

/** Timing of the idempotency records. */
export const idempotencyTimings = {
  /** How long a key is remembered. */
  retentionSeconds: 24 * 60 * 60,
  /** How long an in-progress request blocks its key if it dies without finishing (longer than the Lambda timeout). */
  lockSeconds: 60,
  /** How long a concurrent duplicate waits for the first request's result before 409 idempotency_request_in_progress. */
  waitMs: 5_000,
  pollMs: 100,
};

type CanonicalWork = { value: unknown } | { text: string };

/**
 * The body in canonical JSON (object keys sorted at every depth), so that key order and
 * whitespace do not matter. Iterative, with its own work stack: a body nested 10,000 (or a
 * million) levels deep, which JSON.parse reads without complaint, cannot exhaust the call
 * stack (issue #10). The text is the same as the recursive definition's: arrays in order,
 * object entries sorted by key (UTF-16 code units), undefined entries left out, everything
 * else as JSON.stringify writes it.
 */
export const canonicalJson = (root: unknown): string => {
  const parts: string[] = [];
  const work: CanonicalWork[] = [{ value: root }];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    if ('text' in item) {
      parts.push(item.text);
      continue;
    }
    const { value } = item;
    if (Array.isArray(value)) {
      // Pushed in reverse, so that they are popped in order.
      work.push({ text: ']' });
      for (let index = value.length - 1; index >= 0; index -= 1) {
        work.push({ value: value[index] });
        if (index > 0) work.push({ text: ',' });
      }
      work.push({ text: '[' });
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value as Record<string, unknown>)
        .filter(([, entry]) => entry !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      work.push({ text: '}' });
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [name, entry] = entries[index]!;
        work.push({ value: entry });
        work.push({ text: `${index > 0 ? ',' : ''}${JSON.stringify(name)}:` });
      }
      work.push({ text: '{' });
    } else {
      parts.push(JSON.stringify(value));
    }
  }
  return parts.join('');
};

/** Visible ASCII, 1 to 255 characters: what an Idempotency-Key header may hold. */
export const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;

/**
 * The optional Idempotency-Key header: absent is fine; present, it must be 1 to 255 visible
 * ASCII characters (400 invalid_request otherwise). Both areas read it with this.
 */
export const validateIdempotencyKey = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined;
  if (!idempotencyKeyPattern.test(value)) {
    throw new ApiError(400, 'invalid_request', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.');
  }
  return value;
};

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const epochSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** The request that asks for idempotency. */
export interface IdempotentRequest {
  /**
   * Where the key applies: a storefront endpoint (`esim`, `physical`, `iot`), or an Area A
   * operation with its tenant (`sim-action#<customer>`: one customer group's keys never meet
   * another's). Keys of different endpoints never meet.
   */
  endpoint: string;
  /** The Idempotency-Key header value. */
  idempotencyKey: string;
  /** The parsed request body. */
  body: unknown;
}

/** What withIdempotency answers: the response, and whether it is a replay of an earlier one. */
export interface IdempotentResult {
  response: StoredResponse;
  replayed: boolean;
}

/**
 * Runs `execute` at most once per endpoint and Idempotency-Key within 24 hours (Area B's
 * checkouts, docs/area-b.md "Idempotency-Key", and Area A's SIM actions, docs/sim-actions.md). The first
 * request claims the key with a conditional put (holding the SHA-256 of its canonical body);
 * its successful response is stored and replayed to every retry with the same body; a retry
 * with a different body is 409 `idempotency_key_reused`. A concurrent duplicate polls for
 * the first request's result for up to 5 seconds, then gets 409
 * `idempotency_request_in_progress`. A request that fails releases the key (errors are not
 * replayed: the retry runs again); one that dies without either blocks the key for 60 s.
 */
export const withIdempotency = async (
  store: IdempotencyStore,
  request: IdempotentRequest,
  execute: () => Promise<StoredResponse>,
): Promise<IdempotentResult> => {
  const itemKey = key.idempotency(request.endpoint, sha256(request.idempotencyKey));
  const requestHash = sha256(canonicalJson(request.body));
  const owner = randomUUID();
  const startedMs = Date.now();

  for (;;) {
    const now = epochSeconds(store.now());
    const record: IdempotencyItem = {
      ...itemKey,
      type: 'idempotency',
      endpoint: request.endpoint,
      request_hash: requestHash,
      status: 'in_progress',
      owner,
      lock_expires_at: now + idempotencyTimings.lockSeconds,
      created_at: store.now().toISOString(),
      expires_at: now + idempotencyTimings.retentionSeconds,
    };
    const claimed = await sendUnlessConditionFails(
      store.db,
      new PutCommand({
        TableName: store.tableName,
        Item: record,
        ConditionExpression:
          'attribute_not_exists(PK) OR expires_at < :now OR (#status = :inProgress AND lock_expires_at < :now AND request_hash = :hash)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':now': now, ':inProgress': 'in_progress', ':hash': requestHash },
      }),
    );
    if (claimed) break;

    const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: itemKey, ConsistentRead: true }));
    const existing = Item as IdempotencyItem | undefined;
    if (existing) {
      if (existing.request_hash !== requestHash) {
        throw new ApiError(
          409,
          'idempotency_key_reused',
          'This Idempotency-Key was already used with a different request body.',
        );
      }
      if (existing.status === 'completed' && existing.response_status !== undefined && existing.response_body !== undefined) {
        return {
          response: { status: existing.response_status, body: existing.response_body, orderId: existing.order_id },
          replayed: true,
        };
      }
    }
    // In progress elsewhere (or released meanwhile): wait for it, then claim or replay.
    if (Date.now() - startedMs >= idempotencyTimings.waitMs) {
      throw new ApiError(
        409,
        'idempotency_request_in_progress',
        'A request with this Idempotency-Key is still in progress; retry later.',
      );
    }
    await sleep(idempotencyTimings.pollMs);
  }

  let response: StoredResponse;
  try {
    response = await execute();
  } catch (error) {
    await store.db
      .send(
        new DeleteCommand({
          TableName: store.tableName,
          Key: itemKey,
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner },
        }),
      )
      .catch((releaseError: Error) => {
        if (!isConditionFailure(releaseError)) {
          logger.error('idempotency key release failed', { error: releaseError.message });
        }
      });
    throw error;
  }

  try {
    await store.db.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: itemKey,
        UpdateExpression: `SET #status = :completed, response_status = :responseStatus, response_body = :responseBody${
          response.orderId !== undefined ? ', order_id = :orderId' : ''
        }`,
        ConditionExpression: '#owner = :owner',
        ExpressionAttributeNames: { '#status': 'status', '#owner': 'owner' },
        ExpressionAttributeValues: {
          ':completed': 'completed',
          ':responseStatus': response.status,
          ':responseBody': response.body,
          ...(response.orderId !== undefined ? { ':orderId': response.orderId } : {}),
          ':owner': owner,
        },
      }),
    );
  } catch (error) {
    // The checkout succeeded; failing to remember it only means a retry would run again.
    logger.error('idempotency record not completed', { error: (error as Error).message });
  }
  return { response, replayed: false };
};
