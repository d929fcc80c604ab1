import type { TableKey } from '../db/batch-get';
import type { AuthDeps } from './two-factor';
import { updateUnlessConditionFails } from '../db/conditions';
import { logger } from '../observability/logger';

/** A verified credential item as authentication read it: its key and whether it is marked used. */
export interface ReadCredential {
  key: TableKey;
  verified_at?: unknown;
}

/**
 * Marks the credentials of a successful authentication as used, once: for each one not yet
 * marked, a conditional UpdateItem sets `verified_at` only if it is still absent (so of two
 * concurrent first requests one marks it) and the item is still there. The table's stream
 * turns that change into identity.verified (shared/webhooks/stream-changes.ts). Authentication
 * already read both items, so a marked credential costs nothing more: only a credential's first
 * request makes this extra write. A failure here never fails the request (logged; the next
 * request tries again).
 */
export const markFirstUse = async (deps: AuthDeps, credentials: ReadCredential[], nowIso: string): Promise<void> => {
  const unmarked = credentials.filter((credential) => typeof credential.verified_at !== 'string');
  if (unmarked.length === 0) return;
  const markUsed = {
    UpdateExpression: 'SET verified_at = :now',
    ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(verified_at)',
    ExpressionAttributeValues: { ':now': nowIso },
  };
  const logFailure = (error: Error) => logger.error('credential first use not marked', { error: error.message });
  await Promise.all(unmarked.map((credential) => updateUnlessConditionFails(deps, { Key: credential.key, ...markUsed }).catch(logFailure)));
};
