/**
 * What the developer console's lifecycle sections read from the table: every customer with its
 * webhook subscriptions and their recent delivery attempts (through shared/webhooks' own
 * queries, the `CUSTOMER#` and `WEBHOOK#` partitions of shared/db/keys.ts), and every SIM. The
 * customers and SIMs are found with a Scan filtered on the item type: the local table is
 * small, and the service itself has no "all customers" or "all SIMs" access pattern, on
 * purpose. Local runtime only.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CustomerItem, SimItem, WebhookDeliveryItem, WebhookSubscriptionItem } from '../../shared/db/items';
import { listDeliveries } from '../../shared/webhooks/deliveries';
import { listSubscriptions } from '../../shared/webhooks/subscriptions';
import { scanItemsOfType } from '../scan-items';

/** The table the console reads. */
export interface LifecycleTable {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/** A subscription with its most recent delivery attempts (newest first). */
export interface ConsoleSubscription {
  subscription: WebhookSubscriptionItem;
  deliveries: WebhookDeliveryItem[];
}

/** A customer with its subscriptions (oldest first). */
export interface ConsoleCustomer {
  customer: Pick<CustomerItem, 'id' | 'name' | 'parent'>;
  subscriptions: ConsoleSubscription[];
}

/** Every customer by id, each with its subscriptions and their newest `deliveriesPerSubscription` attempts. */
export const listCustomerSubscriptions = async (table: LifecycleTable, deliveriesPerSubscription: number): Promise<ConsoleCustomer[]> => {
  const customers = await scanItemsOfType<ConsoleCustomer['customer']>(table, 'customer', ['id', 'name', 'parent']);
  customers.sort((left, right) => left.id.localeCompare(right.id));
  return Promise.all(
    customers.map(async (customer) => ({
      customer,
      subscriptions: await Promise.all(
        (await listSubscriptions(table, customer.id)).map(async (subscription) => ({
          subscription,
          deliveries: await listDeliveries(table, customer.id, subscription.id, deliveriesPerSubscription),
        })),
      ),
    })),
  );
};

/** A SIM as the console lists it. */
export type ConsoleSim = Pick<SimItem, 'id' | 'iccid' | 'customer_id' | 'customer_name' | 'status' | 'data_used_mb' | 'updated_at'>;

/** Every SIM, by ICCID. */
export const listSims = async (table: LifecycleTable): Promise<ConsoleSim[]> =>
  (await scanItemsOfType<ConsoleSim>(table, 'sim', ['id', 'iccid', 'customer_id', 'customer_name', 'status', 'data_used_mb', 'updated_at'])).sort((left, right) =>
    left.iccid.localeCompare(right.iccid),
  );
