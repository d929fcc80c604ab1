import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { sendUnlessConditionFails, updateUnlessConditionFails } from '../db/conditions';
import type { AccountItem, OrderItem } from '../db/items';
import { gsi1, gsi1Partition, key } from '../db/keys';
import { buyerName } from '../invoices/invoice';
import type { FulfilmentDeps } from './deps';
import { logger } from '../observability/logger';

/** The buyer's account as fulfilment found or made it. */
export interface ResolvedAccount {
  /** The account as it was before this order changed it; undefined when this order created it. */
  before: AccountItem | undefined;
  /** The account's key e-mail (lower case): devices are owned by it. */
  email: string;
  accountType: AccountItem['account_type'];
  matchedBy: 'customer_id' | 'email' | 'created';
}

/**
 * The account type an order makes: B1 with a Business plan a business account, B1 otherwise
 * (Travel, Travel Top-up) a traveler account, B2 a consumer account, B3 a reseller account.
 */
export const accountTypeFor = (order: OrderItem): AccountItem['account_type'] => {
  if (order.endpoint === 'iot') return 'reseller';
  if (order.endpoint === 'physical') return 'consumer';
  return order.lines.some((line) => line.category.startsWith('business_')) ? 'business' : 'traveler';
};

/** The name of a new account: B3 company_name (else the buyer's name); else customer_name. */
const accountName = (order: OrderItem): string | null =>
  order.endpoint === 'iot' ? (order.company_name ?? buyerName(order) ?? null) : (order.customer_name ?? null);

/** Whether an order's customer_phone and sms_opt_in go onto the account (B1, B3; B2's phone is unused for SMS). */
const carriesSmsFields = (order: OrderItem): boolean => order.endpoint !== 'physical';

/** The account whose GSI1 carries this storefront customer id (at most one is expected). */
const accountByCustomerId = async (deps: FulfilmentDeps, customerId: string): Promise<AccountItem | undefined> => {
  const { Items } = await deps.db.send(
    new QueryCommand({
      TableName: deps.tableName,
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': gsi1Partition.accountByCustomerId(customerId) },
      Limit: 2,
    }),
  );
  const found = (Items ?? []).filter((item) => item.type === 'account') as AccountItem[];
  if (found.length > 1) {
    logger.warn('two accounts carry one storefront customer id; the first is used', {
      storefront_customer_id: customerId,
      accounts: found.map((account) => account.email),
    });
  }
  return found[0];
};

const accountByEmail = async (deps: FulfilmentDeps, email: string): Promise<AccountItem | undefined> =>
  (await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: key.account(email), ConsistentRead: true }))).Item as
    | AccountItem
    | undefined;

/** Creates the order's account; undefined when one appeared under the e-mail meanwhile. */
const createAccount = async (deps: FulfilmentDeps, order: OrderItem): Promise<AccountItem | undefined> => {
  const now = deps.now().toISOString();
  const email = order.customer_email_lower;
  const smsFields = carriesSmsFields(order);
  const phone = smsFields ? order.customer_phone : undefined;
  const optIn = smsFields ? order.sms_opt_in : undefined;
  const account: AccountItem = {
    ...key.account(email),
    ...(order.customer_id ? gsi1.accountByCustomerId(order.customer_id) : {}),
    type: 'account',
    email,
    account_type: accountTypeFor(order),
    name: accountName(order),
    phone: phone ?? null,
    sms_opt_in: optIn === true,
    ...(phone ? { phone_at: order.created_at } : {}),
    ...(optIn !== undefined ? { sms_opt_in_at: order.created_at } : {}),
    ...(order.customer_id ? { customer_id: order.customer_id } : {}),
    order_emails: new Set([email]),
    ...(order.endpoint === 'iot'
      ? {
          company: {
            name: order.company_name ?? buyerName(order) ?? email,
            ...(order.company_registration_number ? { registration_number: order.company_registration_number } : {}),
            ...(order.vat_registration_number ? { vat_registration_number: order.vat_registration_number } : {}),
            ...(order.billing_address ? { billing_address: order.billing_address } : {}),
          },
        }
      : {}),
    created_by_order: order.id,
    created_at: now,
    updated_at: now,
  };
  const created = await sendUnlessConditionFails(
    deps.db,
    new PutCommand({ TableName: deps.tableName, Item: account, ConditionExpression: 'attribute_not_exists(PK)' }),
  );
  return created ? account : undefined;
};

/** The conditional part of one update of the account (its table and key are the account's). */
type AccountUpdate = Pick<UpdateCommandInput, 'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeValues'>;

/**
 * Brings an existing account up to date with the order:
 * - customer_phone (B1, B3) and an explicit sms_opt_in (B1, B3) replace what is on file
 *   only when this order is at least as recent as the order that gave the value on file
 *   (SMS rules 2 and 3: the most recent answer wins, whatever order payments arrive in);
 * - the order's e-mail joins `order_emails`; when it differs from the account's key e-mail
 *   (matched by customer_id after an e-mail change) it becomes `contact_email`;
 * - the order's customer_id is attached when the account has none;
 * - a reseller account without company fields gets the B3 order's.
 * Every write is conditional or idempotent, so doing it again is harmless.
 */
const updateAccount = async (deps: FulfilmentDeps, account: AccountItem, order: OrderItem): Promise<void> => {
  const table = deps.tableName;
  const accountKey = key.account(account.email);
  const now = deps.now().toISOString();
  const writes: Promise<unknown>[] = [];
  // A conditional write that loses (a newer answer on file, a value already set) is not an error: it is skipped.
  const updateAccountUnlessConditionFails = (update: AccountUpdate) => writes.push(updateUnlessConditionFails(deps, { Key: accountKey, ...update }));
  // `attribute` takes `value` unless the value on file came from a more recent order (its `<attribute>_at`).
  const setUnlessOlder = (attribute: 'phone' | 'sms_opt_in', value: string | boolean) =>
    updateAccountUnlessConditionFails({
      UpdateExpression: `SET ${attribute} = :value, ${attribute}_at = :at, updated_at = :now`,
      ConditionExpression: `attribute_not_exists(${attribute}_at) OR ${attribute}_at <= :at`,
      ExpressionAttributeValues: { ':value': value, ':at': order.created_at, ':now': now },
    });

  if (carriesSmsFields(order) && order.customer_phone) setUnlessOlder('phone', order.customer_phone);
  if (carriesSmsFields(order) && order.sms_opt_in !== undefined) setUnlessOlder('sms_opt_in', order.sms_opt_in);
  const orderEmail = order.customer_email_lower;
  const changedEmail = orderEmail !== account.email.toLowerCase();
  writes.push(
    deps.db.send(
      new UpdateCommand({
        TableName: table,
        Key: accountKey,
        UpdateExpression: `ADD order_emails :emails SET updated_at = :now${changedEmail ? ', contact_email = :email' : ''}`,
        ExpressionAttributeValues: { ':emails': new Set([orderEmail]), ':now': now, ...(changedEmail ? { ':email': orderEmail } : {}) },
      }),
    ),
  );
  if (order.customer_id && !account.customer_id) {
    updateAccountUnlessConditionFails({
      UpdateExpression: 'SET customer_id = :id, GSI1PK = :gsiPk, GSI1SK = :gsiSk',
      ConditionExpression: 'attribute_not_exists(customer_id)',
      ExpressionAttributeValues: {
        ':id': order.customer_id,
        ':gsiPk': gsi1.accountByCustomerId(order.customer_id).GSI1PK,
        ':gsiSk': gsi1.accountByCustomerId(order.customer_id).GSI1SK,
      },
    });
  } else if (order.customer_id && account.customer_id !== order.customer_id) {
    logger.warn('the order carries another storefront customer id than its account; the account keeps its own', {
      order_id: order.id,
      account: account.email,
    });
  }
  if (order.endpoint === 'iot' && account.account_type === 'reseller' && !account.company) {
    updateAccountUnlessConditionFails({
      UpdateExpression: 'SET company = :company',
      ConditionExpression: 'attribute_not_exists(company)',
      ExpressionAttributeValues: {
        ':company': {
          name: order.company_name ?? buyerName(order) ?? orderEmail,
          ...(order.company_registration_number ? { registration_number: order.company_registration_number } : {}),
          ...(order.vat_registration_number ? { vat_registration_number: order.vat_registration_number } : {}),
          ...(order.billing_address ? { billing_address: order.billing_address } : {}),
        },
      },
    });
  }
  await Promise.all(writes);
};

/**
 * Resolves the buyer's account, or creates it (docs/fulfilment.md, "Accounts"):
 * 1. by the order's customer_id (GSI1 `STOREFRONT_CUSTOMER#<id>`), which keeps the identity
 *    when the buyer's e-mail changed at the storefront: that account is used even when its
 *    e-mail differs from the order's;
 * 2. else by the order's e-mail (`ACCOUNT#<lower-cased e-mail>`);
 * 3. else a new account of accountTypeFor(order), created by a conditional put (a racing
 *    creation of the same e-mail is found and used instead).
 * An existing account keeps its type: a purchase never converts or upgrades it (a mismatch
 * is logged). Then the account is brought up to date with the order (updateAccount).
 */
export const resolveBuyerAccount = async (deps: FulfilmentDeps, order: OrderItem): Promise<ResolvedAccount> => {
  const [byCustomerId, byEmail] = await Promise.all([
    order.customer_id ? accountByCustomerId(deps, order.customer_id) : Promise.resolve(undefined),
    accountByEmail(deps, order.customer_email_lower),
  ]);
  let existing = byCustomerId ?? byEmail;
  const matchedBy: ResolvedAccount['matchedBy'] = byCustomerId ? 'customer_id' : 'email';
  if (!existing) {
    const created = await createAccount(deps, order);
    if (created) return { before: undefined, email: created.email, accountType: created.account_type, matchedBy: 'created' };
    existing = await accountByEmail(deps, order.customer_email_lower);
    if (!existing) throw new Error(`account ${order.customer_email_lower} vanished while it was being created`);
  }
  const wanted = accountTypeFor(order);
  if (existing.account_type !== wanted && !(wanted === 'traveler' && existing.account_type === 'business')) {
    logger.warn('order fulfilled to an existing account of another type; the account is not converted', {
      order_id: order.id,
      account: existing.email,
      account_type: existing.account_type,
      order_account_type: wanted,
    });
  }
  await updateAccount(deps, existing, order);
  return { before: existing, email: existing.email.toLowerCase(), accountType: existing.account_type, matchedBy };
};
