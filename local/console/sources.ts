/** Where the developer console reads what it shows: the local runtime's parts, read fresh on every page view. */
import type { InboxDelivery } from '../webhook-inbox';
import type { SimulatedMessage } from '../sms-simulator';
import type { EmulatedSms } from '../aws-sms-emulator';
import type { StripeEmulator } from '../stripe-emulator';
import type { OrderSource } from './orders';
import type { StreamFailureMessage } from '../stream-failure-queues';

/** The local runtime as the console sees it (local/runtime.ts builds it). */
export interface ConsoleSources {
  /** The table: orders and their fulfilment effects, SIMs, customers and their webhook subscriptions. */
  orders: OrderSource;
  /** EMAIL_OUTBOX_DIR: `.eml` files, and operations notifications under `operations/`. */
  outboxDir: string;
  /** What the SMS simulator was handed, oldest first (empty when SMS_PROVIDER_URL is another provider). */
  smsMessages(): SimulatedMessage[];
  /** What the AWS End User Messaging emulator was handed, oldest first (issue #21; absent: none). */
  awsSmsMessages?(): EmulatedSms[];
  /** What the webhook inbox received, newest first. */
  inboxDeliveries(): InboxDelivery[];
  /** The inbox's URL (a callback_url that works as is), once it runs. */
  inboxUrl(): string | undefined;
  /** The embedded Stripe emulator, or undefined when STRIPE_SECRET_KEY is set (`none` or a key): then no Pay buttons. */
  stripe(): StripeEmulator | undefined;
  /** What the table-stream consumers' failure queues hold, newest first (issue #31; absent: none). */
  streamFailures?(): Promise<StreamFailureMessage[]>;
  /** The API's base URL (`http://127.0.0.1:3000`): the console pays through `{base}/_local/stripe`, as `npm run pay` does. */
  baseUrl(): string;
}
