/**
 * What `npm start` prints before the ready line: the endpoints, the credentials and example
 * requests. Secrets are printed whole only when the runtime chose them itself (the demo
 * values of local/demo-config.ts and the demo seed, public by design); a secret configured
 * in the environment or a SEED_FILE is shown masked (`maskSecret`), so the banner can be
 * pasted or logged without leaking it.
 */
import { checkoutExamples } from './checkout-examples';
import { lifecycleUrlOf } from './console/sections/webhooks';
import { join } from 'node:path';
import { demoSeedFile } from './cli-options';
import { demoCredentials } from './demo-credentials';
import type { LocalRuntime } from './runtime';

/**
 * A secret as the banner shows it: its first 4 characters (only when it has at least 16, so
 * a short secret gives nothing away), an ellipsis and its length, e.g. `sk_l… (32 characters)`.
 */
export const maskSecret = (value: string): string => `${value.length >= 16 ? value.slice(0, 4) : ''}… (${value.length} characters)`;

/** A URL with any password in it masked. */
const maskUrl = (value: string): string => {
  try {
    const url = new URL(value);
    if (!url.password) return value;
    url.password = '***';
    return url.toString();
  } catch {
    return value;
  }
};

const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

/** What the banner needs to know about this start. */
export interface BannerInput {
  runtime: Pick<
    LocalRuntime,
    'baseUrl' | 'consoleUrl' | 'dynamodbEndpoint' | 'tableName' | 'sqsEndpoint' | 'smsSimulatorUrl' | 'inbox' | 'env' | 'seeded' | 'bundles' | 'payments'
  >;
  seed: unknown;
  /** Where the seed came from (a path, or a note when there is none). */
  seedSource: string;
  persistDir?: string;
  /** The variables the environment set (forwardedEnv()); their secrets are masked. */
  configured: Record<string, string>;
  /** When the banner is printed: the feed example's source time and month (default now). */
  now?: Date;
}

/**
 * The SMS provider line (issue #21): SMS_PROVIDER and, with `aws`, where SendTextMessage goes
 * (AWS_SMS_ENDPOINT or the embedded emulator), SMS_ORIGINATION_IDENTITY and SMS_CONFIGURATION_SET,
 * and where delivery events and inbound SMS can be posted by hand.
 */
const awsSmsLine = (base: string, env: Record<string, string>): string => {
  if ((env.SMS_PROVIDER ?? 'http') !== 'aws') {
    return `SMS_PROVIDER=http (the SMS simulator above; SMS_PROVIDER=aws sends through AWS End User Messaging, locally ${base}/_local/aws-sms/); inbound SMS: POST ${base}/_local/aws-sms/inbound`;
  }
  const endpoint = env.AWS_SMS_ENDPOINT === `${base}/_local/aws-sms` ? `the embedded emulator at ${env.AWS_SMS_ENDPOINT}/` : `AWS_SMS_ENDPOINT=${maskUrl(env.AWS_SMS_ENDPOINT ?? '')}`;
  return `SMS_PROVIDER=aws: ${endpoint} (SMS_ORIGINATION_IDENTITY=${env.SMS_ORIGINATION_IDENTITY ?? ''}, SMS_CONFIGURATION_SET=${env.SMS_CONFIGURATION_SET ?? ''}); events and inbound SMS: POST ${base}/_local/aws-sms/events, ${base}/_local/aws-sms/inbound`;
};

/** The banner's lines (the ready line is not among them). */
export const bannerLines = ({ runtime, seed, seedSource, persistDir, configured, now: startedAt = new Date() }: BannerInput): string[] => {
  const env = runtime.env;
  const secret = (name: string): string => {
    const value = env[name] ?? '';
    return configured[name] === undefined ? value : `${maskSecret(value)}, from ${name}`;
  };
  const demoSeed = seedSource === demoSeedFile;
  const demo = demoCredentials(seed);
  const credential = (value: string | undefined): string | undefined => (value === undefined || demoSeed ? value : maskSecret(value));
  const base = runtime.baseUrl;
  const payments = runtime.payments;
  const stripe = payments.mode === 'emulator'
    ? `the embedded emulator at ${payments.apiBase} (STRIPE_SECRET_KEY unset; test cards pm_card_visa, pm_card_chargeDeclined; events signed to /api/v1/webhooks/stripe)`
    : payments.mode === 'none'
      ? 'none (STRIPE_SECRET_KEY=none: Area B checkouts answer 503 stripe_not_configured)'
      : env.STRIPE_SECRET_KEY
    ? `configured (${configured.STRIPE_SECRET_KEY === undefined ? env.STRIPE_SECRET_KEY : maskSecret(env.STRIPE_SECRET_KEY)})${env.STRIPE_API_BASE ? ` against ${maskUrl(env.STRIPE_API_BASE)}` : ''}`
    : 'not configured (Area B checkouts answer 503 stripe_not_configured)';
  const demoSeedInUse = seedSource === demoSeedFile && configured.STOREFRONT_SERVICE_TOKEN === undefined;
  const payLines =
    payments.mode === 'emulator'
      ? [
          ...(demoSeedInUse
            ? [
                '  Check out (one per checkout, demo SKUs):',
                ...checkoutExamples.map(
                  ({ path, body }) =>
                    `  curl -s -X POST -H ${quote(`Authorization: Bearer ${env.STOREFRONT_SERVICE_TOKEN ?? ''}`)} -H 'Content-Type: application/json' -d ${quote(JSON.stringify(body))} ${base}${path}`,
                ),
              ]
            : []),
          '  Pay a checkout: each one created prints its ready `npm run pay -- <order_id>` line here (add --decline or --cancel),',
          '  or press Pay on the developer console; by hand (the payment intent id is the part of client_secret before _secret_):',
          `  curl -s ${payments.apiBase}/v1/payment_intents/PI_ID/confirm -d client_secret=CLIENT_SECRET -d payment_method=pm_card_visa`,
        ]
      : [];
  const lines = [
    '',
    'SIM service, local runtime',
    `  API                 ${base}  (Area A: ${base}/developer/api/ , Area B: ${base}/api/v1/)`,
    `  Developer console   ${runtime.consoleUrl}  (open it in a browser: orders and their fulfilment, e-mails, SMS, webhooks${payments.mode === 'emulator' ? '; Pay / Decline / Cancel' : ''})`,
    `  API reference       ${base}/_local/docs  (OpenAPI 3.1: ${base}/_local/openapi.json)`,
    ...(runtime.bundles
      ? [`  Functions           the stack's esbuild bundles (${Object.keys(runtime.bundles.files).length}, built in ${runtime.bundles.buildMs} ms) in ${runtime.bundles.dir}`]
      : []),
    `  DynamoDB Local      ${runtime.dynamodbEndpoint}  table ${runtime.tableName}${persistDir ? `, data kept in ${persistDir}` : ', in memory'}`,
    `  SQS emulator        ${runtime.sqsEndpoint}  queues ${persistDir ? `kept in ${join(persistDir, 'sqs')}` : 'in memory'}`,
    `  SMS simulator       ${runtime.smsSimulatorUrl}${env.SMS_PROVIDER_URL === runtime.smsSimulatorUrl ? '' : `  (not used: SMS_PROVIDER_URL=${maskUrl(env.SMS_PROVIDER_URL ?? '')})`}`,
    `  SMS provider        ${awsSmsLine(base, env)}`,
    `  Webhook inbox       ${runtime.inbox.url}  (HTTPS; a callback_url that works as is; GET it to list what arrived)`,
    `  E-mail outbox       ${env.EMAIL_OUTBOX_DIR}${configured.EMAIL_OUTBOX_DIR !== undefined || persistDir ? '' : '  (this instance\'s own, removed when it stops)'}`,
    `  Seed                ${
      seed === undefined
        ? seedSource
        : runtime.seeded
          ? `${seedSource} (${runtime.seeded.items} items)`
          : `${seedSource} not loaded: the table already existed in ${persistDir}`
    }`,
    '',
    `${demoSeed ? 'Demo credentials' : 'Credentials'} (values from the environment or a SEED_FILE are shown masked)`,
    `  Area A bearer token       ${credential(demo.bearerToken) ?? '(none in the seed)'}`,
    `  Area A API key            ${credential(demo.apiKey) ?? '(none in the seed)'}`,
    `  Storefront service token  ${secret('STOREFRONT_SERVICE_TOKEN')}`,
    `  Stripe webhook secret     ${secret('STRIPE_WEBHOOK_SECRET')}`,
    `  SMS provider token        ${secret('SMS_PROVIDER_TOKEN')}`,
    `  SMS receipt secret        ${secret('SMS_RECEIPT_SECRET')}`,
    `  Callback signing secret   ${secret('CALLBACK_SIGNING_SECRET')}`,
    `  Stripe                    ${stripe}`,
    '',
    'Try',
  ];
  if (demo.bearerToken && demo.apiKey) {
    // A SEED_FILE's credentials are not printed: the example reads them from the shell.
    const auth = demoSeed
      ? `-H ${quote(`Authorization: Bearer ${demo.bearerToken}`)} -H ${quote(`X-Customer-API-Key: ${demo.apiKey}`)}`
      : '-H "Authorization: Bearer $BEARER_TOKEN" -H "X-Customer-API-Key: $API_KEY"';
    if (!demoSeed) lines.push('  (BEARER_TOKEN and API_KEY: the masked values above, from your seed)');
    lines.push(`  curl -s ${auth} ${base}/developer/api/sims/`);
    if (demo.simId !== undefined) lines.push(`  curl -s ${auth} ${base}/developer/api/sims/${demo.simId}/`);
    lines.push(`  curl -s -i ${auth} ${base}/developer/api/no-such-path`);
    if (demo.iccid !== undefined) {
      const sms = JSON.stringify({ message: 'Hello from the banner', callback_url: runtime.inbox.url });
      lines.push(`  curl -s -X POST ${auth} -H 'Content-Type: application/json' -d ${quote(sms)} ${base}/developer/api/sims/${demo.iccid}/sms/`);
      lines.push(`  curl -sk ${runtime.inbox.url}    # a moment later: the signed delivery receipt`);
      // Lifecycle events (issue #15, docs/webhooks.md): subscribe the inbox to every event, as the
      // console's "Subscribe the webhook inbox" does (same URL), change a SIM, see the signed event.
      const subscription = JSON.stringify({ url: lifecycleUrlOf(runtime.inbox.url) });
      lines.push(`  curl -s -X POST ${auth} -H 'Content-Type: application/json' -d ${quote(subscription)} ${base}/developer/api/webhooks/    # the inbox, every event`);
      lines.push(`  curl -s -X POST ${base}/_local/sims/${demo.iccid} -d ${quote(JSON.stringify({ status: 'suspended' }))}    # then curl -sk the inbox: a signed line.suspended`);
      // The operator feed (issue #20): a month-to-date usage record, as the operator's mediation sends them.
      const usage = { type: 'usage', source_time: startedAt.toISOString(), iccid: demo.iccid, month: startedAt.toISOString().slice(0, 7), data_used_mb: '250.00', data_overage_mb: '0.00', overage_cost: '0.00' };
      lines.push(`  curl -s -X POST ${base}/_local/feed --data-binary ${quote(JSON.stringify(usage))}    # the operator feed: then a signed usage.updated`);
    }
  } else {
    lines.push('  (the seed has no developer token and API key of one customer group to call Area A with)');
    lines.push(`  curl -s -i ${base}/no-such-path`);
  }
  lines.push(...payLines, '');
  return lines;
};
