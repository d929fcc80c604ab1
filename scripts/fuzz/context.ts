/**
 * What the fuzz generator knows about the service it attacks: working credentials (so that
 * requests get past authentication and reach the handlers), the secrets with which the SMS
 * provider and Stripe sign what they post, and names that exist in the seed (SIM ids,
 * ICCIDs, SKUs, e-mails), all read from a seed document in the LOCAL-CONTRACT.md format.
 */
import { demoSecrets } from '../../local/demo-config';
import { readFileSync } from 'node:fs';
import { demoSeedFile } from '../../local/seed/read-file';

/** Credentials, secrets and seed names the generator draws from. */
export interface FuzzContext {
  /** Bearer tokens of active developers of the customer group of `apiKey` (rate limits are per user). */
  developerTokens: string[];
  /** An API key of that customer group. */
  apiKey: string;
  /** Tokens and keys that exist but must be refused (revoked, inactive user, no developer role, other group). */
  refusedTokens: string[];
  refusedApiKeys: string[];
  /** Internal ids and ICCIDs of SIMs in the key's scope and outside it. */
  simIds: number[];
  iccids: string[];
  storefrontToken: string;
  stripeWebhookSecret: string;
  smsReceiptSecret: string;
  skus: { esim: string[]; physical: string[]; iot: string[] };
  /** ICCIDs of owned devices and the e-mails of existing accounts (top-up and account rules). */
  deviceIccids: string[];
  accountEmails: string[];
  /** A developer token the generator never uses, kept for the liveness check at the end of a run. */
  livenessToken?: string;
}

type Loose = Record<string, any>;

const list = (document: Loose, section: string): Loose[] => (Array.isArray(document[section]) ? document[section] : []);

/** The secrets the generator signs and authenticates with. */
export interface FuzzSecrets {
  STOREFRONT_SERVICE_TOKEN: string;
  STRIPE_WEBHOOK_SECRET: string;
  SMS_RECEIPT_SECRET: string;
}

/**
 * The context for a seed document: the developers of the first customer group that has an
 * unrevoked key (every active developer of it, so the per-user rate limits spread), the
 * tokens and keys that must be refused, and the seed's SIMs, SKUs, devices and accounts.
 */
export const fuzzContext = (document: Loose, secrets: FuzzSecrets): FuzzContext => {
  const users = list(document, 'users');
  const tokens = list(document, 'bearer_tokens');
  const keys = list(document, 'api_keys');
  const isDeveloper = (user: Loose | undefined) => user?.active === true && Array.isArray(user.roles) && user.roles.includes('developer');
  const userOf = (token: Loose) => users.find((user) => user.id === token.user);
  const key = keys.find((candidate) => !candidate.revoked && tokens.some((token) => !token.revoked && isDeveloper(userOf(token)) && userOf(token)?.customer === candidate.customer));
  if (!key) throw new Error('the seed has no developer token and API key of one customer group');
  const developerTokens = tokens
    .filter((token) => !token.revoked && isDeveloper(userOf(token)) && userOf(token)?.customer === key.customer)
    .map((token) => String(token.token));
  const plans = list(document, 'plans');
  const skusOf = (...categories: string[]) => plans.filter((plan) => categories.includes(plan.category)).map((plan) => String(plan.sku));
  return {
    developerTokens,
    apiKey: String(key.key),
    refusedTokens: tokens.filter((token) => token.revoked || !isDeveloper(userOf(token))).map((token) => String(token.token)),
    refusedApiKeys: keys.filter((candidate) => candidate.revoked || candidate.customer !== key.customer).map((candidate) => String(candidate.key)),
    simIds: list(document, 'sims').map((sim) => Number(sim.id)),
    iccids: list(document, 'sims').map((sim) => String(sim.iccid)),
    storefrontToken: secrets.STOREFRONT_SERVICE_TOKEN,
    stripeWebhookSecret: secrets.STRIPE_WEBHOOK_SECRET,
    smsReceiptSecret: secrets.SMS_RECEIPT_SECRET,
    skus: {
      esim: skusOf('travel', 'travel_topup', 'business_travel', 'business_topup'),
      physical: skusOf('physical'),
      iot: skusOf('iot_contract'),
    },
    deviceIccids: list(document, 'devices').map((device) => String(device.iccid)),
    accountEmails: list(document, 'accounts').map((account) => String(account.email)),
  };
};

/** Number of extra developers the fuzz seed adds, so that rate limits leave most requests through. */
export const fuzzDeveloperCount = 40;

/** The token of the extra developer that the harness keeps for its own liveness check. */
export const livenessToken = 'bearer_fuzzlive_LivenessCheckTokenNotUsedByTheGenerator01';

const sim = (id: number, customer: string, dataBundle: string | null) => ({
  id,
  iccid: `894450000000000${id}`,
  msisdn: `447700900${String(id).slice(-3)}`,
  status: 'active',
  connection_status: 'active',
  customer,
  tariff_name: 'Fleet Bundle',
  data_used_mb: '1.00',
  data_overage_mb: '0.00',
  base_cost: '1.00',
  overage_cost: '0.00',
  data_bundle: dataBundle,
  updated_at: '2026-11-17T08:00:00+00:00',
});

/**
 * What the fuzz seed adds whose names are Object.prototype's own names (names are texts; such
 * a name is no id, shared/vocabulary/fields.ts reservedIds, so the ids are near them): a second
 * tenant `Constructor` named `constructor` with a SIM, a developer and an API key, and under the
 * attacked group `acme` a sub-customer `acme-proto` named `hasOwnProperty` whose SIM draws on a
 * bundle `Prototype`. The A1 filter `customer=hasOwnProperty` finds that SIM; `customer=constructor`
 * is another group's name (404).
 */
export const hostileTenant = {
  customers: [
    { id: 'Constructor', name: 'constructor', parent: null, sms_enabled: true },
    { id: 'acme-proto', name: 'hasOwnProperty', parent: 'acme', sms_enabled: true },
  ],
  data_bundles: [{ id: 'Prototype', customer: 'acme', allowance_mb: '100.00', monthly_cost: '1.00', per_sim_access_fee: '0.10' }],
  sims: [sim(1031, 'Constructor', null), sim(1032, 'acme-proto', 'Prototype')],
  users: [{ id: 'u-ctor', email: 'ctor@constructor.example', customer: 'Constructor', active: true, roles: ['developer'] }],
  bearer_tokens: [{ token: 'bearer_ctor01_ConstructorTenantDeveloperToken0123456789', user: 'u-ctor', revoked: false }],
  api_keys: [{ key: 'devkey_ctor01_ConstructorTenantApiKey0123456789abcdef', customer: 'Constructor', revoked: false }],
};

/**
 * The seed the harness runs its own runtime with: the demo seed, SMS enabled for every
 * customer (so that no valid send is the spec's 503 `sms_not_configured`), plus 40
 * developers of the demo key's group (each with its own rate-limit counters), one kept
 * for the liveness check, and the hostile tenant (hostileTenant).
 */
export const fuzzSeedDocument = (): Loose => {
  const seed = JSON.parse(readFileSync(demoSeedFile, 'utf8')) as Loose;
  const group = 'acme';
  seed.customers = [
    ...list(seed, 'customers').map((customer) => ({ ...customer, sms_enabled: true })),
    // Names that are Object.prototype's (issue #31): another tenant so named, and a
    // sub-customer of the attacked group so named with a SIM on a bundle of its own.
    ...hostileTenant.customers,
  ];
  seed.data_bundles = [...list(seed, 'data_bundles'), ...hostileTenant.data_bundles];
  seed.sims = [...list(seed, 'sims'), ...hostileTenant.sims];
  const extra = Array.from({ length: fuzzDeveloperCount }, (_, index) => `fuzz${String(index).padStart(2, '0')}`);
  seed.users = [
    ...list(seed, 'users'),
    ...extra.map((id) => ({ id: `u-${id}`, email: `${id}@acme.example`, customer: group, active: true, roles: ['developer'] })),
    { id: 'u-fuzzlive', email: 'fuzzlive@acme.example', customer: group, active: true, roles: ['developer'] },
    ...hostileTenant.users,
  ];
  seed.api_keys = [...list(seed, 'api_keys'), ...hostileTenant.api_keys];
  seed.bearer_tokens = [
    ...list(seed, 'bearer_tokens'),
    ...extra.map((id) => ({ token: `bearer_${id}_FuzzDeveloperToken${id}0123456789abcdef`, user: `u-${id}`, revoked: false })),
    { token: livenessToken, user: 'u-fuzzlive', revoked: false },
    ...hostileTenant.bearer_tokens,
  ];
  return seed;
};

/** The context of the fuzz seed with the demo secrets, minus the liveness developer. */
export const fuzzSeedContext = (secrets: FuzzSecrets = demoSecrets): FuzzContext => {
  const context = fuzzContext(fuzzSeedDocument(), secrets);
  return { ...context, developerTokens: context.developerTokens.filter((token) => token !== livenessToken), livenessToken };
};
