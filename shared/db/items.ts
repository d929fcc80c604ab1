/**
 * The items stored in the single table, as written by the seed loader and the domain.
 * Keys come from ./keys.ts. Amounts are GBP decimal strings ("12.50"); times ISO-8601 strings
 * unless the name ends in `_ms` (epoch milliseconds) or is `expires_at` (epoch seconds, TTL).
 * Secrets are never stored, only SHA-256 hashes (hex) of the whole token or key string.
 */

/** A customer (account) of Area A. `path` lists ids from the top-level group down to itself. */
export interface CustomerItem {
  PK: string; SK: string; GSI1PK: string; GSI1SK: string;
  type: 'customer';
  id: string;
  name: string;
  parent: string | null;
  path: string[];
  sms_enabled: boolean;
}

/** A developer portal user. */
export interface UserItem {
  PK: string; SK: string;
  type: 'user';
  id: string;
  email: string;
  customer_id: string;
  active: boolean;
  roles: string[];
}

/**
 * A personal bearer token, found by its prefix. It carries a copy of its user's state
 * (`user_*`), kept in step by whatever changes the user, so that auth needs one read.
 */
export interface BearerTokenItem {
  PK: string; SK: string; GSI1PK: string; GSI1SK: string;
  type: 'bearer_token';
  prefix: string;
  secret_hash: string;
  user_id: string;
  revoked: boolean;
  user_active: boolean;
  user_roles: string[];
  user_customer_id: string;
  /**
   * When the token first authenticated successfully (issue #15, identity.verified); absent
   * until then. Set once by a conditional write of the authentication path.
   */
  verified_at?: string;
}

/** A customer-group API key, found by its prefix, with its customer's path for scoping. */
export interface ApiKeyItem {
  PK: string; SK: string;
  type: 'api_key';
  prefix: string;
  secret_hash: string;
  customer_id: string;
  customer_path: string[];
  revoked: boolean;
  /** When the key first authenticated successfully (as BearerTokenItem.verified_at). */
  verified_at?: string;
  /**
   * What the key may do (issue #33; shared/auth/scopes.ts): absent on a key stored before,
   * which then has the default scopes (sims:read and sms:send).
   */
  scopes?: string[];
}

/** A shared data bundle's figures as copied onto each SIM on it. */
export interface SimBundleSnapshot {
  id: string;
  allowance_mb: string;
  monthly_cost: string;
  per_sim_access_fee: string;
  /** Sum of data_used_mb over the bundle's SIMs. */
  pool_used_mb: string;
}

/**
 * A SIM. `customer_path` is the owner's path (top-level group … owner); `data_bundle` is a
 * copy of the bundle's figures so that one read serves A2.
 */
export interface SimItem {
  PK: string; SK: string; GSI1PK: string; GSI1SK: string;
  type: 'sim';
  id: number;
  iccid: string;
  msisdn: string | null;
  status: string;
  connection_status: string;
  customer_id: string;
  customer_name: string;
  customer_path: string[];
  tariff_name: string | null;
  data_used_mb: string;
  data_overage_mb: string;
  base_cost: string;
  overage_cost: string;
  data_bundle: SimBundleSnapshot | null;
  updated_at: string;
  updated_at_ms: number;
  /**
   * The month (`YYYY-MM`) of the usage figures (issue #20): a later month's usage replaces them.
   * The seed loader stamps the month it loads in; absent on SIMs of an earlier version.
   */
  usage_month?: string;
  /**
   * When a writer last wrote the SIM through the SIM write path (shared/sims/sim-writes.ts):
   * the list index counts a SIM only from then on (issue #19; absent on SIMs written by an
   * earlier version until `rebuild-list-index` marks them).
   */
  listed_at_ms?: number;
  /**
   * The SIM's time position in the list of each customer on its path, `<yyyymmdd>#<sequence>`,
   * handed out when `updated_at` moves (shared/sim-lists/positions.ts): its bucket in the
   * order of update.
   */
  list_pos?: Record<string, string>;
}

/**
 * The list index state of a customer group (issue #19, docs/area-a.md "Lists at fleet scale").
 * `state` is `ready` once A1 reads the index; `building` while `rebuild-list-index` marks the
 * SIMs of a group filled by an earlier version (A1 then reads the sim_scope items). A SIM
 * image counts when `listed_at_ms >= build_started_ms`. `fences` are the id fences not yet
 * sealed into a page (SimListFencePageItem), `max_id` the largest SIM id ever bucketed.
 */
export interface SimListMetaItem {
  PK: string; SK: string;
  type: 'sim_list_meta';
  group_id: string;
  state: 'building' | 'ready';
  build_started_ms: number;
  fences: number[];
  sealed_pages: number;
  max_id: number;
  version: number;
  /** Buckets per count page (shared/sim-lists/layout.ts pageSlots); absent on an index built before it existed: 16. */
  page_slots?: number;
  /** Count partitions per list (layout.ts pageShards); absent on an index built before: 1. */
  page_shards?: number;
  /**
   * The bucket number of each of `fences`, once a bucket of the group has been split
   * (shared/sim-lists/fences.ts splitBucket); absent before: fence `i` of META is bucket
   * `sealed_pages * 256 + i`.
   */
  buckets?: number[];
  /** The number the next bucket cut or split off gets; absent until a first split: the number of fences. */
  next_bucket?: number;
  /** A split whose entries are being moved (source bucket, new bucket, ids from `from` below `to`); absent when none. */
  moving?: SimListMove;
}

/** The entries a bucket split moves: ids from `from` (below `to`, when the bucket had an end) leave bucket `source` for `target`. */
export interface SimListMove {
  source: number;
  target: number;
  from: number;
  to?: number;
}

/**
 * A customer group's directory (issue #20, shared/groups/directory.ts): its customers' names,
 * its data bundles' figures, and, as attributes `pool#<bundle>#<shard>`, each bundle's pool
 * usage per shard in hundredths of a MB. `version` guards the customers and bundles (operator
 * feed), `pool_version` the pool shards (the stream consumer's recounts).
 */
export interface GroupDirectoryItem {
  PK: string; SK: string;
  type: 'group_directory';
  group_id: string;
  customers: Record<string, { name: string; source_ms?: number }>;
  bundles: Record<string, { customer: string; allowance_mb: string; monthly_cost: string; per_sim_access_fee: string; source_ms?: number }>;
  version: number;
  pool_version: number;
}

/** A sealed page of a group's id fences: the lower bounds of buckets `page * 256 ...`. */
export interface SimListFencePageItem {
  PK: string; SK: string;
  type: 'sim_list_fences';
  page: number;
  fences: number[];
  /** The bucket number of each fence, on a page written since the group's first split; absent: fence `i` is bucket `page * 256 + i`. */
  buckets?: number[];
}

/**
 * A SIM as listed from one customer's scope: one item per customer on the owner's path,
 * small, holding what list filters need, so a list page counts and offsets without reading
 * SIMs in full.
 */
export interface SimScopeItem {
  PK: string; SK: string;
  type: 'sim_scope';
  sim_id: number;
  owner_id: string;
  status: string;
  updated_at_ms: number;
}

/** A shared data bundle. */
export interface DataBundleItem {
  PK: string; SK: string;
  type: 'data_bundle';
  id: string;
  customer_id: string;
  allowance_mb: string;
  monthly_cost: string;
  per_sim_access_fee: string;
  pool_used_mb: string;
}

/** A storefront plan. `price` null means the plan has no price. */
export interface PlanItem {
  PK: string; SK: string;
  type: 'plan';
  sku: string;
  name: string;
  category: 'business_travel' | 'business_topup' | 'travel' | 'travel_topup' | 'physical' | 'iot_contract';
  published: boolean;
  price: string | null;
}

/**
 * One unassigned unit of stock. A checkout holds it (`held_by`, `hold_expires_at` epoch
 * seconds); a hold past its expiry counts as free again; payment turns it into an assignment.
 */
export interface StockUnitItem {
  PK: string; SK: string;
  type: 'stock_unit';
  iccid: string;
  kind: 'esim' | 'physical';
  held_by?: string;
  hold_expires_at?: number;
  assigned_order?: string;
}

/** A storefront buyer's account, keyed by lower-cased e-mail. */
export interface AccountItem {
  PK: string; SK: string;
  GSI1PK?: string; GSI1SK?: string;
  type: 'account';
  email: string;
  account_type: 'consumer' | 'traveler' | 'business' | 'reseller';
  name: string | null;
  phone: string | null;
  sms_opt_in: boolean;
  customer_id?: string;
  /**
   * created_at of the order that gave `phone` / `sms_opt_in` (fulfilment keeps the most recent
   * answer, SMS rules 2 and 3); absent for values on file from before (seed, migration).
   */
  phone_at?: string;
  sms_opt_in_at?: string;
  /** Every e-mail an order of this account was placed with (customer_id keeps identity across changes). */
  order_emails?: Set<string>;
  /** The e-mail of the account's most recent order, when it differs from `email` (the key). */
  contact_email?: string;
  /** A reseller's company (B3). */
  company?: AccountCompany;
  /** The order whose payment created the account (absent for seeded accounts). */
  created_by_order?: string;
  created_at?: string;
  updated_at?: string;
}

/** The company fields of a reseller account, as the B3 order gave them. */
export interface AccountCompany {
  name: string;
  registration_number?: string;
  vat_registration_number?: string;
  billing_address?: OrderAddress;
}

/** An eSIM owned by an account (owner e-mail), optionally assigned to a team member's e-mail. */
export interface DeviceItem {
  PK: string; SK: string;
  type: 'device';
  iccid: string;
  owner: string;
  assigned_to: string | null;
  /** The order that provisioned the device and its plan (absent for seeded devices). */
  order_id?: string;
  plan_sku?: string;
  plan_name?: string;
  created_at?: string;
}

/**
 * A top-up provisioned onto a device by one line of an order (B1 top-up rules). It belongs to
 * the device, not to whoever the device is assigned to, so unassigning later keeps it.
 */
export interface DeviceTopupItem {
  PK: string; SK: string;
  type: 'device_topup';
  iccid: string;
  order_id: string;
  line_index: number;
  sku: string;
  plan_name: string;
  /** The buyer's e-mail (owner or assigned team member). */
  bought_by: string;
  created_at: string;
}

/** Where an SMS message is: `reserved` while its submission is in flight, then the spec's states. */
export type SmsMessageStatus = 'reserved' | 'sent' | 'delivered' | 'expired' | 'failed';

/**
 * An SMS message (spec A3/A4), keyed by its globally unique message id. Written as a
 * `reserved` reservation (with `expires_at`, so an abandoned one expires) before the provider
 * is called, then moved to `sent`, then once to a terminal state by the delivery receipt.
 * A submission that fails deletes its own reservation, so the id can be used again.
 */
export interface SmsMessageItem {
  PK: string; SK: string;
  type: 'sms_message';
  message_id: string;
  status: SmsMessageStatus;
  /** Token of the submission that holds the reservation (only it may release or confirm it). */
  reservation_id: string;
  sim_id: number;
  iccid: string;
  /** Null only on a reservation for a SIM without MSISDN (released at once, 422 no_msisdn). */
  msisdn: string | null;
  /** Owner of the SIM at submission, and its customer path (for the reconciliation scope). */
  owner_customer_id: string;
  owner_customer_path: string[];
  /** Customer of the API key that sent it; its webhook secret signs the receipt. */
  sender_customer_id: string;
  callback_url: string | null;
  submitted_at: string;
  received_at: string | null;
  provider_message_id?: string | null;
  /** occurred_at of the provider's receipt, as reported. */
  provider_occurred_at?: string | null;
  /** Correlation id of the send-sms request (its X-Request-Id): the receipt's logs name it as origin_correlation_id. */
  correlation_id?: string;
  /** Epoch seconds; only on a reservation. */
  expires_at?: number;
  /**
   * GSI1 (gsi1.messageByProviderId), set with provider_message_id once the network accepted
   * the message: delivery events and answers find the message by the network's id.
   */
  GSI1PK?: string;
  GSI1SK?: string;
  /**
   * The delivery events of AWS End User Messaging received for it, final or not, in the order
   * they arrived (docs/sms.md, "Delivery events"); not shown by the API.
   */
  events?: SmsDeliveryEvent[];
  /** One key per event in `events` (type, timestamp, status): a repeated event is recorded once. */
  event_keys?: Set<string>;
}

/** One delivery event of a sent message, as kept in its history. */
export interface SmsDeliveryEvent {
  /** `eventType` (TEXT_DELIVERED, TEXT_PENDING, ...). */
  type: string;
  /** `messageStatus` as reported, or null. */
  status: string | null;
  /** `isFinal`. */
  final: boolean;
  /** `eventTimestamp` as ISO-8601 (+00:00), or null when the event had none. */
  occurred_at: string | null;
  /** When the service recorded it. */
  recorded_at: string;
}

/**
 * A mobile-originated SMS (two-way, issue #21): a message a SIM sent to the service's number,
 * under the same `MSG#<message_id>` key space as sent messages, so the read-back route reads
 * both. The message id is derived from the network's inboundMessageId, so a repeated delivery
 * of one inbound message is taken once (a conditional put). Its INSERT in the table's stream
 * makes the `sms.received` lifecycle event.
 */
export interface SmsInboundItem {
  PK: string; SK: string;
  type: 'sms_inbound';
  message_id: string;
  direction: 'mo';
  /** The network's inboundMessageId. */
  inbound_message_id: string;
  sim_id: number;
  iccid: string;
  /** The SIM's MSISDN (digits, no `+`): the message's originationNumber. */
  msisdn: string;
  /** Owner of the SIM when the message arrived, and its customer path (scope of the read-back and of the event). */
  owner_customer_id: string;
  owner_customer_path: string[];
  /** The text (messageBody). */
  message: string;
  /** The registered keyword the network matched (messageKeyword), or null. */
  keyword: string | null;
  /** The service's number the SIM wrote to (destinationNumber). */
  destination_number: string | null;
  /** When the service received it (ISO-8601, +00:00). */
  received_at: string;
  /** Our message_id of the SMS it answers (previousPublishedMessageId matched to a message sent to this SIM), or null. */
  in_reply_to: string | null;
}

/**
 * The claim of one MSISDN by one SIM (`MSISDN#<digits>`): written with the SIM, conditionally,
 * so that no two SIMs share an MSISDN, and read to find the SIM of an inbound SMS
 * (shared/msisdn/msisdn-index.ts).
 */
export interface MsisdnClaimItem {
  PK: string; SK: string;
  type: 'msisdn_claim';
  /** The MSISDN's digits (no `+`, no spaces). */
  msisdn: string;
  /** The SIM of the latest record that named the number (its holder, unless `released`). */
  sim_id: number;
  iccid: string;
  /**
   * Epoch ms of the latest record that named the number (the feed's source time; a writer that
   * is not the feed: the time of its write); absent for a seeded claim, which counts as older
   * than any record.
   */
  claim_ms?: number;
  /** True once that SIM gave the number up (or moved past the record): the number is free, the time stays. */
  released?: boolean;
}

/** Which storefront checkout made an order: B1 eSIM, B2 physical SIM, B3 IoT contract. */
export type CheckoutEndpoint = 'esim' | 'physical' | 'iot';

/**
 * Where an order is. Checkout writes `pending` and moves it to `failed` when the payment
 * intent cannot be created; the payment webhook and fulfilment move it on from `pending`.
 */
export type OrderStatus = 'pending' | 'failed' | 'paid' | 'payment_failed' | 'cancelled' | 'fulfilled' | 'review_required';

/** One priced cart line of an order. Amounts are GBP decimal strings. */
export interface OrderLine {
  sku: string;
  name: string;
  category: PlanItem['category'];
  quantity: number;
  unit_price: string;
  line_total: string;
  /** Only on a top-up line (B1): the device topped up. */
  topup_iccid?: string;
}

/** A stock unit held for an order (see StockUnitItem). */
export interface HeldStockUnit {
  kind: StockUnitItem['kind'];
  iccid: string;
}

/** A postal address of an order (B2, B3), with fallbacks applied; billing has no name or phone. */
export interface OrderAddress {
  name?: string;
  line1: string;
  line2?: string;
  city: string;
  region?: string;
  postal_code: string;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
  phone?: string;
}

/** A contact person of a B3 order. */
export interface OrderContact {
  name?: string;
  email?: string;
}

/** A consent record exactly as the storefront sent it (spec "Consent object"). */
export interface ConsentRecord {
  agreed: boolean;
  wording: string;
  given_at: string;
}

/**
 * A storefront order, written by checkout before the payment intent is created. Buyer
 * fields use the spec's request names, as validated (optional ones absent when not sent),
 * with the spec's fallbacks applied (B2 customer_name ⇄ shipping_address.name; B3 shipping
 * name and company_name from first + last name). `sms_opt_in` is true or false only when the
 * request said so with a JSON boolean, absent otherwise.
 */
export interface OrderItem {
  PK: string; SK: string;
  type: 'order';
  id: string;
  endpoint: CheckoutEndpoint;
  status: OrderStatus;
  lines: OrderLine[];
  currency: 'GBP';
  subtotal: string;
  tax_amount: string;
  amount_total: string;
  /** amount_total in pence: the amount of the payment intent. */
  amount_total_pence: number;
  /** VAT rate applied, as a percentage string ("20", "25.5", "0"), and the country it is for. */
  vat_rate: string;
  vat_country: string;
  customer_email: string;
  /** customer_email lower-cased: the account key. */
  customer_email_lower: string;
  customer_country: string;
  customer_name?: string;
  customer_phone?: string;
  customer_id?: string;
  sms_opt_in?: boolean;
  customer_first_name?: string;
  customer_last_name?: string;
  company_name?: string;
  company_registration_number?: string;
  vat_registration_number?: string;
  title?: string;
  purchasing_contact?: OrderContact;
  invoice_contact?: OrderContact;
  head_user?: OrderContact;
  marketing_consent?: ConsentRecord;
  data_processing_consent?: ConsentRecord;
  shipping_address?: OrderAddress;
  billing_address?: OrderAddress;
  /** Stock held for the order (empty for top-ups and IoT) and when the holds lapse (epoch seconds). */
  held_units: HeldStockUnit[];
  hold_expires_at?: number;
  payment_intent_id?: string;
  /** Why the order failed (e.g. `stripe_error`). */
  failure_reason?: string;
  created_at: string;
  updated_at: string;
  /** Set by fulfilment (shared/fulfilment, docs/fulfilment.md). */
  paid_at?: string;
  fulfilled_at?: string;
  /** Why a person must look at the order (status `review_required`); nothing was provisioned after it. */
  review_reason?: string;
  /** The account the order was fulfilled to (its key e-mail). */
  account_email?: string;
  /** The SMS decision, taken once (SMS rules): the number to text, or null for no SMS. */
  sms_to?: string | null;
  /** Why there is no SMS for this order (when sms_to is null). */
  sms_skip_reason?: string;
  /** The single fulfilment worker of the order and until when it holds the order (epoch ms). */
  fulfilment_lease_owner?: string;
  fulfilment_lease_until?: number;
  /** Correlation id of the checkout request (its X-Request-Id): fulfilment's logs name it as origin_correlation_id. */
  correlation_id?: string;
}

/** The state of one side effect of an order's fulfilment (docs/fulfilment.md, "Exactly once"). */
export type FulfilmentEffectStatus = 'pending' | 'done' | 'failed' | 'unknown';

/**
 * One side effect of an order's fulfilment. A message (e-mail, SMS, notification) is claimed
 * (`pending`) before it is sent and marked `done` after; a claim found `pending` by a later
 * worker is `unknown` and never repeated. Database effects are recorded `done` after they ran.
 */
export interface FulfilmentEffectItem {
  PK: string; SK: string;
  type: 'fulfilment_effect';
  order_id: string;
  effect: string;
  status: FulfilmentEffectStatus;
  /** Token of the worker that claimed it. */
  claim: string;
  claimed_at: string;
  completed_at?: string;
  /** What the effect produced (provider message id, units, ...) or why it failed. */
  detail?: Record<string, unknown>;
  /**
   * An SMS effect sent through AWS End User Messaging (issue #21): the state its first final
   * delivery event reported, when the service received it, and every delivery event received
   * (shared/sms/delivery-events.ts). No callback: the buyer is told nothing more.
   */
  delivery_status?: 'delivered' | 'expired' | 'failed';
  delivery_received_at?: string;
  delivery_events?: SmsDeliveryEvent[];
  delivery_event_keys?: Set<string>;
}

/** The dispatch task of a B2 order: held SIMs assigned to the order, awaiting a person to post them. */
export interface FulfilmentTaskItem {
  PK: string; SK: string; GSI1PK: string; GSI1SK: string;
  type: 'fulfilment_task';
  order_id: string;
  status: 'awaiting_dispatch';
  units: HeldStockUnit[];
  lines: OrderLine[];
  customer_email: string;
  customer_name?: string;
  customer_phone?: string;
  shipping_address?: OrderAddress;
  created_at: string;
}

/**
 * An Idempotency-Key of a storefront endpoint (24 hours, TTL `expires_at`). `in_progress`
 * while the first request runs (`lock_expires_at` bounds how long a crashed request blocks
 * the key), then `completed` with the response to replay. A request that fails deletes it.
 */
export interface IdempotencyItem {
  PK: string; SK: string;
  type: 'idempotency';
  /** A storefront endpoint, or an Area A operation with its tenant (shared/idempotency/idempotency.ts). */
  endpoint: string;
  /** SHA-256 (hex) of the request body in canonical JSON. */
  request_hash: string;
  status: 'in_progress' | 'completed';
  /** Token of the request that holds the key (only it may complete or release it). */
  owner: string;
  lock_expires_at: number;
  response_status?: number;
  response_body?: string;
  order_id?: string;
  created_at: string;
  expires_at: number;
}

/** Whether a webhook subscription's recent events reach its URL (`failing`: a run of events exhausted their retries). */
export type WebhookSubscriptionStatus = 'active' | 'failing';

/** A signing secret a rotation retired: it keeps signing until `expires_at_ms` (24 hours after its retirement). */
export interface RetiredWebhookSecret {
  sealed: string;
  expires_at_ms: number;
}

/**
 * A webhook subscription of a customer (issue #15; docs/webhooks.md). Its signing secret is
 * kept sealed (AES-256-GCM under WEBHOOK_SECRETS_KEY, shared/webhooks/secret-box.ts), never in
 * clear; after a rotation the retired ones keep signing: `retired_secrets`, newest first, at
 * most 3, each for 24 hours (issue #22). `previous_secret_*` is how an item written before
 * that kept its one retired secret; read as such, removed by the next rotation.
 */
export interface WebhookSubscriptionItem {
  PK: string; SK: string;
  type: 'webhook_subscription';
  id: string;
  customer_id: string;
  url: string;
  events: string[];
  description: string | null;
  status: WebhookSubscriptionStatus;
  created_at: string;
  secret_sealed: string;
  retired_secrets?: RetiredWebhookSecret[];
  previous_secret_sealed?: string;
  previous_secret_expires_at_ms?: number;
  /** Events in a row whose delivery exhausted every retry; reset by a delivered event. */
  failed_events_in_a_row: number;
  failing_since?: string;
}

/*
 * The count of a customer's webhook subscriptions (key.webhookCount: `type: 'webhook_count'`,
 * `count`, at most 10) has no interface: it is only written, by the UpdateItems of
 * shared/webhooks/subscriptions.ts whose condition holds the limit, and never read as an item.
 */

/** One delivery attempt of an event to a subscription (kept 30 days, TTL `expires_at`). */
export interface WebhookDeliveryItem {
  PK: string; SK: string;
  type: 'webhook_delivery';
  subscription_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  outcome: 'delivered' | 'failed';
  http_status: number | null;
  error: string | null;
  attempted_at: string;
  /** When the next attempt is due; null after a delivery or the last attempt. */
  next_attempt_at: string | null;
  expires_at: number;
}

/** Why a SIM action failed (issue #33; shared/sim-actions/). */
export interface SimActionFailureItem {
  code: 'rejected_by_operator' | 'operator_timeout' | 'superseded';
  detail: string;
}

/**
 * A SIM action (issue #33), in its SIM's partition (key.simAction). The owner's customer and
 * path are those of the SIM when it was asked for: the lifecycle events action.completed and
 * action.failed go to their subscribers.
 */
export interface SimActionItem {
  PK: string; SK: string;
  type: 'sim_action';
  action_id: string;
  sim_id: number;
  iccid: string;
  action: 'activate' | 'suspend' | 'resume' | 'terminate';
  /** The SIM's status when the action was asked for, and the status it asks for. */
  from_status: string;
  target_status: string;
  status: 'pending' | 'completed' | 'failed';
  reason: string | null;
  requested_at: string;
  requested_at_ms: number;
  completed_at: string | null;
  failure: SimActionFailureItem | null;
  /** The user who asked (the bearer token's). */
  requested_by: string;
  customer_id: string;
  customer_path: string[];
  /** When the operator's provisioning API accepted it (2xx), if it did. */
  sent_at?: string;
}

/**
 * The lock of a SIM's one pending action (key.simActionPending): put with the action under
 * attribute_not_exists, deleted when the action completes or fails. In GSI1 (gsi1.pendingSimAction)
 * while it exists, for the 24-hour timeout's sweep.
 */
export interface SimActionPendingItem {
  PK: string; SK: string;
  GSI1PK: string; GSI1SK: string;
  type: 'sim_action_pending';
  action_id: string;
  sim_id: number;
  from_status: string;
  target_status: string;
  requested_at_ms: number;
}
