import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { CustomerItem, WebhookSubscriptionItem } from '../db/items';
import { key } from '../db/keys';
import type { TableStreamRecord } from '../db/stream-record';
import { readGroupDirectory, type GroupDirectory } from '../groups/directory';
import { logger } from '../observability/logger';
import { recordMetric } from '../observability/metrics';
import type { DeliveryJob, DeliveryQueue } from './delivery-queue';
import { eventFor, lifecycleChanges, type LifecycleChange } from './stream-changes';
import { listSubscriptions } from './subscriptions';

/** What publishing lifecycle events needs: the table (subscriptions, customers) and the delivery queue. */
export interface PublishDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  queue: DeliveryQueue;
}

/** A customer's path (top-level group first), read from its item; undefined for an unknown customer. */
const customerPath = async (deps: PublishDeps, customerId: string): Promise<string[] | undefined> => {
  const found = (await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: key.customer(customerId) }))).Item as
    | CustomerItem
    | undefined;
  return found?.type === 'customer' ? found.path : undefined;
};

/**
 * The delivery jobs of one change: one per subscription to its type of the owning customer and
 * of every ancestor on its path (never of a descendant or a sibling), each with the data as
 * that subscriber's customer sees it. `subscriptionsOf` is memoised per invocation.
 */
const jobsFor = async (
  deps: PublishDeps,
  change: LifecycleChange,
  subscriptionsOf: (customerId: string) => Promise<WebhookSubscriptionItem[]>,
): Promise<DeliveryJob[]> => {
  const path = change.customerPath ?? (await customerPath(deps, change.customerId)) ?? [change.customerId];
  const perCustomer = await Promise.all(path.map((customerId) => subscriptionsOf(customerId)));
  return perCustomer
    .flat()
    .filter((subscription) => subscription.events.includes(change.type))
    .map((subscription) => ({
      customer_id: subscription.customer_id,
      subscription_id: subscription.id,
      event: eventFor(change, subscription.customer_id),
    }));
};

/**
 * The publisher of one batch of stream records (issue #15, point 3): turns each record's changes
 * of SIM and credential items into lifecycle events (./stream-changes.ts) and queues one delivery
 * job per (event, subscription) on the webhook-deliveries queue. It resolves once the record's
 * jobs are queued (or it has none), and throws what failed otherwise: the consumer tells an
 * outage from a record it cannot process (shared/routes/publish-lifecycle-events.ts). The
 * subscriptions and group directories it reads are cached for the batch (a read that failed is
 * not: the next record reads again).
 */
export const batchPublisher = (deps: PublishDeps): ((record: TableStreamRecord) => Promise<void>) => {
  const subscriptionsOf = cachedSubscriptions(deps);
  const directoriesOf = cachedDirectories(deps);
  return (record) => publishRecord(deps, record, subscriptionsOf, directoriesOf);
};

/** The subscriptions of a customer, read once per batch. */
const cachedSubscriptions = (deps: PublishDeps) => {
  const cache = new Map<string, Promise<WebhookSubscriptionItem[]>>();
  return (customerId: string): Promise<WebhookSubscriptionItem[]> => {
    let found = cache.get(customerId);
    if (!found) {
      found = listSubscriptions(deps, customerId);
      cache.set(customerId, found);
      found.catch(() => cache.delete(customerId));
    }
    return found;
  };
};

/** The directories of customer groups (names, bundle figures, pool usage), read once per batch. */
const cachedDirectories = (deps: PublishDeps) => {
  const cache = new Map<string, Promise<GroupDirectory | undefined>>();
  return (groupId: string): Promise<GroupDirectory | undefined> => {
    let found = cache.get(groupId);
    if (!found) {
      cache.set(groupId, (found = readGroupDirectory(deps, groupId)));
      found.catch(() => cache.delete(groupId));
    }
    return found;
  };
};

/** Queues the delivery jobs of one stream record's events; throws what failed. */
const publishRecord = async (
  deps: PublishDeps,
  record: TableStreamRecord,
  subscriptionsOf: (customerId: string) => Promise<WebhookSubscriptionItem[]>,
  directoriesOf: (groupId: string) => Promise<GroupDirectory | undefined>,
): Promise<void> => {
  const image = unmarshall((record.dynamodb?.NewImage ?? {}) as Record<string, AttributeValue>) as { type?: string; customer_path?: string[] };
  const directory = image.type === 'sim' && image.customer_path?.[0] ? await directoriesOf(image.customer_path[0]) : undefined;
  const changes = lifecycleChanges(record, () => directory);
  if (changes.length === 0) return;
  const jobs = (await Promise.all(changes.map((change) => jobsFor(deps, change, subscriptionsOf)))).flat();
  if (jobs.length > 0) await deps.queue.enqueue(jobs);
  for (const change of changes) {
    recordMetric('LifecycleEvents', { type: change.type });
    logger.info('lifecycle event', {
      event_id: change.id,
      type: change.type,
      customer_id: change.customerId,
      jobs: jobs.filter((job) => job.event.id === change.id).length,
    });
  }
};
