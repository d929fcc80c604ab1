/**
 * Every key of the single table is built here and nowhere else. The attributes stored with
 * each item are described in ./items.ts.
 */

/** Zero-pads a numeric id so that sort keys order numerically (SIM ids up to 15 digits). */
export const padId = (id: number): string => String(id).padStart(15, '0');

/** Zero-pads a page number so that sort keys order numerically. */
const pad = (value: number, width: number): string => String(value).padStart(width, '0');

/** Key builders, one per item type. */
export const key = {
  customer: (customerId: string) => ({ PK: `CUSTOMER#${customerId}`, SK: 'CUSTOMER' }),
  user: (userId: string) => ({ PK: `USER#${userId}`, SK: 'USER' }),
  bearerToken: (prefix: string) => ({ PK: `TOKEN#${prefix}`, SK: 'TOKEN' }),
  apiKey: (prefix: string) => ({ PK: `APIKEY#${prefix}`, SK: 'APIKEY' }),
  sim: (simId: number) => ({ PK: `SIM#${simId}`, SK: 'SIM' }),
  /** One per customer on the owning customer's path: the SIM as seen from that scope. */
  simScope: (customerId: string, simId: number) => ({ PK: `SCOPE#${customerId}`, SK: `SIM#${padId(simId)}` }),
  dataBundle: (bundleId: string) => ({ PK: `BUNDLE#${bundleId}`, SK: 'BUNDLE' }),
  message: (messageId: string) => ({ PK: `MSG#${messageId}`, SK: 'MSG' }),
  /**
   * The one claim of an MSISDN (its digits, no `+`): which SIM holds it. Uniqueness of MSISDNs
   * is a conditional write of this item (shared/msisdn/msisdn-index.ts); inbound SMS find their
   * SIM through it.
   */
  msisdn: (digits: string) => ({ PK: `MSISDN#${digits}`, SK: 'MSISDN' }),
  plan: (sku: string) => ({ PK: `PLAN#${sku}`, SK: 'PLAN' }),
  stockUnit: (kind: string, iccid: string) => ({ PK: `STOCK#${kind}`, SK: `UNIT#${iccid}` }),
  account: (email: string) => ({ PK: `ACCOUNT#${email.toLowerCase()}`, SK: 'ACCOUNT' }),
  device: (iccid: string) => ({ PK: `DEVICE#${iccid}`, SK: 'DEVICE' }),
  order: (orderId: string) => ({ PK: `ORDER#${orderId}`, SK: 'ORDER' }),
  /** Area A rate-limit counters of one user with one customer group's API key (shared/rate-limit). */
  rateLimit: (userId: string, customerId: string) => ({ PK: `RATE#${userId}`, SK: `CUSTOMER#${customerId}` }),
  /** An Idempotency-Key of a storefront endpoint; `keyHash` is the SHA-256 (hex) of the header value. */
  idempotency: (endpoint: string, keyHash: string) => ({ PK: `IDEMPOTENCY#${endpoint}#${keyHash}`, SK: 'IDEMPOTENCY' }),
  /** One side effect of an order's fulfilment (shared/fulfilment), in the order's partition. */
  fulfilmentEffect: (orderId: string, effect: string) => ({ PK: `ORDER#${orderId}`, SK: `EFFECT#${effect}` }),
  /** The dispatch task of a B2 order (a person picks, assigns and posts the SIMs), in the order's partition. */
  fulfilmentTask: (orderId: string) => ({ PK: `ORDER#${orderId}`, SK: 'FULFILMENT_TASK' }),
  /** A top-up applied to a device by one line of one order. */
  deviceTopup: (iccid: string, orderId: string, lineIndex: number) => ({
    PK: `DEVICE#${iccid}`,
    SK: `TOPUP#${orderId}#${String(lineIndex).padStart(2, '0')}`,
  }),
  /** A webhook subscription (issue #15), in its customer's partition beside the customer item. */
  webhookSubscription: (customerId: string, subscriptionId: string) => ({
    PK: `CUSTOMER#${customerId}`,
    SK: `WEBHOOK#${subscriptionId}`,
  }),
  /** How many webhook subscriptions a customer has (the limit of 10 is a condition on it). */
  webhookCount: (customerId: string) => ({ PK: `CUSTOMER#${customerId}`, SK: 'WEBHOOK_COUNT' }),
  /**
   * One delivery attempt of a subscription, newest last in sort order: epoch ms zero-padded,
   * then the event id and the attempt number.
   */
  webhookDelivery: (customerId: string, subscriptionId: string, attemptedAtMs: number, eventId: string, attempt: number) => ({
    PK: `WEBHOOK#${customerId}#${subscriptionId}`,
    SK: `DELIVERY#${String(attemptedAtMs).padStart(15, '0')}#${eventId}#${String(attempt).padStart(2, '0')}`,
  }),
  /**
   * A customer group's list index state (issue #19, shared/sim-lists): whether A1 reads the
   * index, when it started counting SIMs, and the id fences not yet sealed into a page.
   */
  simListMeta: (groupId: string) => ({ PK: `SIMLIST#${groupId}`, SK: 'META' }),
  /** A sealed page of a customer group's id fences (the bucket bounds of the id ordering). */
  simListFences: (groupId: string, page: number) => ({ PK: `SIMLIST#${groupId}`, SK: `FENCES#${pad(page, 6)}` }),
  /** Progress of `rebuild-list-index` for a customer group, so that it resumes where it stopped. */
  simListRebuild: (groupId: string) => ({ PK: `SIMLIST#${groupId}`, SK: 'REBUILD' }),
  /** The counter that hands out time positions of one customer's list for one UTC day (yyyymmdd). */
  simListSequence: (customerId: string, day: string) => ({ PK: `SIMLISTSEQ#${customerId}`, SK: day }),
  /** A SIM in one customer's list in id order: its bucket is its partition, its prefix and id the sort key. */
  simListIdEntry: (customerId: string, bucket: number, prefix: string, simId: number) => ({
    PK: `SIMLI#${customerId}#${bucket}`,
    SK: `${prefix}#${padId(simId)}`,
  }),
  /** Counts of a page of buckets of one customer's list in id order, in one of the list's count partitions (shard 0: no suffix). */
  simListIdCounts: (customerId: string, page: number, shard: number) => ({ PK: partition.simListIdCounts(customerId, shard), SK: pad(page, 6) }),
  /** A SIM in one customer's list in order of update (day and bucket of its time position). */
  simListTimeEntry: (customerId: string, day: string, bucket: number, prefix: string, updatedAtMs: number, simId: number) => ({
    PK: `SIMLT#${customerId}#${day}#${bucket}`,
    SK: `${prefix}#${padId(updatedAtMs)}#${padId(simId)}`,
  }),
  /** A customer group's directory (issue #20): its customers' names, its bundles' figures and pool usage (shared/groups/directory.ts). */
  groupDirectory: (groupId: string) => ({ PK: `GROUP#${groupId}`, SK: 'DIRECTORY' }),
  /** A SIM's share of its bundle's pool, in one of the bundle's pool shards (shared/sim-lists/pools.ts). */
  poolContribution: (bundleId: string, shard: number, simId: number) => ({ PK: `POOLC#${bundleId}#${shard}`, SK: padId(simId) }),
  /** A message of the operator feed as applied (issue #20): its counts, kept 14 days; `shard` spreads a day over partitions. */
  feedBatch: (day: string, shard: number, receivedAt: string, batchId: string) => ({ PK: `FEEDBATCH#${day}#${shard}`, SK: `${receivedAt}#${batchId}` }),
  /** A line of the operator feed refused, with its reason, kept 14 days. */
  feedRejection: (day: string, shard: number, receivedAt: string, batchId: string, line: number) => ({
    PK: `FEEDREJ#${day}#${shard}`,
    SK: `${receivedAt}#${batchId}#${String(line).padStart(9, '0')}`,
  }),
  /**
   * A feed record held for a SIM the service has not seen yet (issue #31), under the SIM's ICCID,
   * in source-time order: applied when the SIM arrives, kept 14 days (TTL).
   */
  feedHeld: (iccid: string, sourceMs: number, batchId: string, line: number) => ({
    PK: partition.feedHeld(iccid),
    SK: `${padId(sourceMs)}#${batchId}#${String(line).padStart(9, '0')}`,
  }),
  /** The mark that an ICCID has held feed records (read 100 at a time for the SIMs a message creates). */
  feedHeldMark: (iccid: string) => ({ PK: partition.feedHeld(iccid), SK: 'MARK' }),
  /**
   * An action asked for a SIM (issue #33, shared/sim-actions/), in the SIM's partition beside the
   * SIM item; action ids sort by time, so a descending query lists the newest first.
   */
  simAction: (simId: number, actionId: string) => ({ PK: `SIM#${simId}`, SK: `${sortKeyPrefix.simAction}${actionId}` }),
  /** The one pending action of a SIM (its lock: at most one at a time, a conditional put), while it is pending. */
  simActionPending: (simId: number) => ({ PK: `SIM#${simId}`, SK: 'ACTION_PENDING' }),
  /** The SIM id of an ICCID (written once, with the SIM): the operator feed finds SIMs by ICCID with BatchGetItem. */
  simIdByIccid: (iccid: string) => ({ PK: `SIMICCID#${iccid}`, SK: 'SIM' }),
  /** Counts and time bounds of a page of buckets of one customer's list in order of update, for one day, in one of its count partitions. */
  simListTimeCounts: (customerId: string, day: string, page: number, shard: number) => ({ PK: partition.simListTimeCounts(customerId, shard), SK: `${day}#${pad(page, 6)}` }),
  /** The head of a customer's count journal (shared/sim-lists/journal.ts): the last sequence handed out, how far folds went. */
  simListJournalHead: (customerId: string) => ({ PK: partition.simListJournal(customerId), SK: 'HEAD' }),
  /** One append to a customer's count journal: the bucket recounts of one consumer batch, under its sequence. */
  simListJournalEntry: (customerId: string, sequence: number) => ({ PK: partition.simListJournal(customerId), SK: `${sortKeyPrefix.simListJournal}${pad(sequence, 12)}` }),
};

/** Sort keys used as bounds of range queries within a partition. */
export const sortKey = {
  /** The sort key of a SIM within a `SCOPE#` partition (same format as key.simScope). */
  simScope: (simId: number) => `SIM#${padId(simId)}`,
  /** The SIM id of a `SCOPE#` partition's sort key; undefined when it is not one. */
  simIdOfScope: (value: string): number | undefined => (/^SIM#\d+$/.test(value) ? Number(value.slice(4)) : undefined),
};

/** Partition keys that are queried as a whole. */
export const partition = {
  simScope: (customerId: string) => `SCOPE#${customerId}`,
  stock: (kind: string) => `STOCK#${kind}`,
  /** An order with its fulfilment effects and task (key.order, key.fulfilmentEffect, key.fulfilmentTask). */
  order: (orderId: string) => `ORDER#${orderId}`,
  /** A device with its top-ups (key.device, key.deviceTopup). */
  device: (iccid: string) => `DEVICE#${iccid}`,
  /** A customer with its webhook subscriptions (key.customer, key.webhookSubscription, key.webhookCount). */
  customer: (customerId: string) => `CUSTOMER#${customerId}`,
  /** The delivery attempts of one subscription (key.webhookDelivery). */
  webhookDeliveries: (customerId: string, subscriptionId: string) => `WEBHOOK#${customerId}#${subscriptionId}`,
  /** A customer group's list index state and its sealed fence pages (key.simListMeta, key.simListFences). */
  simList: (groupId: string) => `SIMLIST#${groupId}`,
  /** One bucket of a customer's list in id order (key.simListIdEntry). */
  simListIdBucket: (customerId: string, bucket: number) => `SIMLI#${customerId}#${bucket}`,
  /**
   * One of the count partitions of a customer's list in id order (key.simListIdCounts): shard 0
   * is `SIMLIC#<customer>`, where an index built before the pages were spread keeps all of them.
   */
  simListIdCounts: (customerId: string, shard: number) => `SIMLIC#${customerId}${shard === 0 ? '' : `#${shard}`}`,
  /** One bucket of a customer's list in order of update (key.simListTimeEntry). */
  simListTimeBucket: (customerId: string, day: string, bucket: number) => `SIMLT#${customerId}#${day}#${bucket}`,
  /** One of the count partitions of a customer's list in order of update (key.simListTimeCounts), as simListIdCounts. */
  simListTimeCounts: (customerId: string, shard: number) => `SIMLTC#${customerId}${shard === 0 ? '' : `#${shard}`}`,
  /** A customer's count journal: its head and its appends (key.simListJournalHead, key.simListJournalEntry). */
  simListJournal: (customerId: string) => `SIMLJ#${customerId}`,
  /** The feed batches of a day, one shard (key.feedBatch). */
  feedBatches: (day: string, shard: number) => `FEEDBATCH#${day}#${shard}`,
  /** The feed's refused lines of a day, one shard (key.feedRejection). */
  feedRejections: (day: string, shard: number) => `FEEDREJ#${day}#${shard}`,
  /** One pool shard of a bundle (key.poolContribution). */
  poolShard: (bundleId: string, shard: number) => `POOLC#${bundleId}#${shard}`,
  /** The feed records held for one ICCID (key.feedHeld). */
  feedHeld: (iccid: string) => `HELD#${iccid}`,
  /** A SIM with its actions and its pending action's lock (key.sim, key.simAction, key.simActionPending). */
  sim: (simId: number) => `SIM#${simId}`,
};

/** GSI1 keys: lookups by an alternative identifier. */
export const gsi1 = {
  simByIccid: (iccid: string) => ({ GSI1PK: `ICCID#${iccid}`, GSI1SK: 'SIM' }),
  customerByName: (name: string, customerId: string) => ({ GSI1PK: `CUSTOMER_NAME#${name}`, GSI1SK: `CUSTOMER#${customerId}` }),
  tokenOfUser: (userId: string, prefix: string) => ({ GSI1PK: `USER#${userId}`, GSI1SK: `TOKEN#${prefix}` }),
  accountByCustomerId: (customerId: string) => ({ GSI1PK: `STOREFRONT_CUSTOMER#${customerId}`, GSI1SK: 'ACCOUNT' }),
  /** Fulfilment tasks by status, oldest first (the operations team's work list). */
  fulfilmentTaskByStatus: (status: string, createdAt: string, orderId: string) => ({
    GSI1PK: `FULFILMENT_TASKS#${status}`,
    GSI1SK: `${createdAt}#${orderId}`,
  }),
  /**
   * A sent message by the id the SMS network gave it (AWS End User Messaging's MessageId):
   * delivery events without our message_id in their context, and the `previousPublishedMessageId`
   * of an answer, find the message through it.
   */
  messageByProviderId: (providerMessageId: string) => ({ GSI1PK: `SMS_PROVIDER_ID#${providerMessageId}`, GSI1SK: 'MSG' }),
  /** A pending SIM action's lock in the list of pending actions, oldest first (the 24-hour timeout's sweep). */
  pendingSimAction: (requestedAtMs: number, actionId: string) => ({ GSI1PK: gsi1Partition.pendingSimActions, GSI1SK: `${padId(requestedAtMs)}#${actionId}` }),
  /** A held feed record in the feed journal's listing of a day (one of its shards), newest last. */
  feedHeld: (day: string, shard: number, receivedAt: string, batchId: string, line: number) => ({
    GSI1PK: gsi1Partition.feedHeld(day, shard),
    GSI1SK: `${receivedAt}#${batchId}#${String(line).padStart(9, '0')}`,
  }),
};

/** GSI1 partition values that are queried as a whole. */
export const gsi1Partition = {
  simByIccid: (iccid: string) => `ICCID#${iccid}`,
  customerByName: (name: string) => `CUSTOMER_NAME#${name}`,
  tokensOfUser: (userId: string) => `USER#${userId}`,
  accountByCustomerId: (customerId: string) => `STOREFRONT_CUSTOMER#${customerId}`,
  fulfilmentTasksByStatus: (status: string) => `FULFILMENT_TASKS#${status}`,
  messageByProviderId: (providerMessageId: string) => `SMS_PROVIDER_ID#${providerMessageId}`,
  /** The held feed records received on a day, one of its shards (gsi1.feedHeld). */
  feedHeld: (day: string, shard: number) => `FEEDHELD#${day}#${shard}`,
  /** Every pending SIM action (gsi1.pendingSimAction): one partition, as only pending actions are in it. */
  pendingSimActions: 'SIM_ACTIONS_PENDING',
};

/** Sort-key prefixes queried with begins_with. */
export const sortKeyPrefix = {
  /** Every fulfilment effect of an order (with key.fulfilmentEffect). */
  fulfilmentEffect: 'EFFECT#',
  /** Every top-up of a device (with key.deviceTopup). */
  deviceTopup: 'TOPUP#',
  /** Every webhook subscription of a customer (with key.webhookSubscription). */
  webhookSubscription: 'WEBHOOK#',
  /** Every delivery attempt of a subscription (with key.webhookDelivery). */
  webhookDelivery: 'DELIVERY#',
  /** The sealed fence pages of a customer group (with key.simListFences); they sort before META. */
  simListFences: 'FENCES#',
  /** Every append of a customer's count journal (with key.simListJournalEntry); its head (`HEAD`) sorts before them. */
  simListJournal: 'J#',
  /** Every bearer token of a user, on GSI1 (GSI1SK, with gsi1.tokenOfUser). */
  tokensOfUser: 'TOKEN#',
  /** Every action of a SIM (with key.simAction); the SIM item (`SIM`) and the lock (`ACTION_PENDING`) do not begin so. */
  simAction: 'ACTION#',
};

/** The part of a key before its first id: `SIM#` of `SIM#1001`. */
const prefixOf = (value: string): string => value.slice(0, value.indexOf('#') + 1);

/**
 * The prefix of each kind of partition key (of the table, or of GSI1 where named so), taken
 * from its builder above: for tools that tell what a call read or wrote from the keys it
 * named (the benchmark's round-trip and write-cost counts), so that they restate no key format.
 */
export const partitionPrefix = {
  sim: prefixOf(key.sim(0).PK),
  bearerToken: prefixOf(key.bearerToken('').PK),
  apiKey: prefixOf(key.apiKey('').PK),
  rateLimit: prefixOf(key.rateLimit('', '').PK),
  simScope: prefixOf(partition.simScope('')),
  groupDirectory: prefixOf(key.groupDirectory('').PK),
  simList: prefixOf(partition.simList('')),
  simListSequence: prefixOf(key.simListSequence('', '').PK),
  simListIdBucket: prefixOf(partition.simListIdBucket('', 0)),
  simListIdCounts: prefixOf(partition.simListIdCounts('', 0)),
  simListTimeBucket: prefixOf(partition.simListTimeBucket('', '', 0)),
  simListTimeCounts: prefixOf(partition.simListTimeCounts('', 0)),
  simListJournal: prefixOf(partition.simListJournal('')),
  /** GSI1: a customer by its name (gsi1.customerByName). */
  customerByName: prefixOf(gsi1Partition.customerByName('')),
};
