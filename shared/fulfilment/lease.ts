import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { sendUnlessConditionFails } from '../db/conditions';
import { key } from '../db/keys';
import type { FulfilmentDeps } from './deps';
import { sleep } from '../time/sleep';

/** Another worker holds the order longer than this worker waits: the message goes back to the queue. */
export class OrderBusyError extends Error {
  constructor(orderId: string) {
    super(`order ${orderId} is being fulfilled by another worker`);
    this.name = 'OrderBusyError';
  }
}

/**
 * Takes the order's fulfilment lease (a conditional write on the order item): one worker per
 * order at a time, so that two deliveries of the same or of different payment events never
 * interleave. A lease runs out by itself after `leaseMs` (longer than the consumer's timeout),
 * so a worker that died frees the order. Waits up to `leaseWaitMs` for a held lease, then
 * throws OrderBusyError. The order must exist (the condition never creates one). Resolves
 * with the lease token.
 */
export const acquireOrderLease = async (deps: FulfilmentDeps, orderId: string): Promise<string> => {
  const token = deps.newToken();
  const deadline = deps.now().getTime() + deps.leaseWaitMs;
  for (let attempt = 0; ; attempt += 1) {
    const now = deps.now().getTime();
    const taken = await sendUnlessConditionFails(
      deps.db,
      new UpdateCommand({
        TableName: deps.tableName,
        Key: key.order(orderId),
        UpdateExpression: 'SET fulfilment_lease_owner = :token, fulfilment_lease_until = :until',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(fulfilment_lease_until) OR fulfilment_lease_until < :now)',
        ExpressionAttributeValues: { ':token': token, ':until': now + deps.leaseMs, ':now': now },
      }),
    );
    if (taken) return token;
    if (deps.now().getTime() >= deadline) throw new OrderBusyError(orderId);
    await sleep(Math.min(100 * 2 ** attempt, 1000));
  }
};

/** Gives the lease back (only if this worker still holds it). */
export const releaseOrderLease = async (deps: FulfilmentDeps, orderId: string, token: string): Promise<void> => {
  await sendUnlessConditionFails(
    deps.db,
    new UpdateCommand({
      TableName: deps.tableName,
      Key: key.order(orderId),
      UpdateExpression: 'REMOVE fulfilment_lease_owner, fulfilment_lease_until',
      ConditionExpression: 'fulfilment_lease_owner = :token',
      ExpressionAttributeValues: { ':token': token },
    }),
  );
};
