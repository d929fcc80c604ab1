/**
 * Administration of Area A credentials, against any table (local or deployed):
 *
 *   npm run admin -- issue-token --user USER_ID
 *   npm run admin -- issue-key --customer CUSTOMER_ID
 *   npm run admin -- revoke-token PREFIX_OR_TOKEN
 *   npm run admin -- revoke-key PREFIX_OR_KEY
 *   npm run admin -- deactivate-user USER_ID
 *   npm run admin -- activate-user USER_ID
 *   npm run admin -- webhook-secret --customer CUSTOMER_ID
 *   npm run admin -- set-sim ICCID [--status STATUS] [--data-used-mb MB] [--customer CUSTOMER_ID]
 *   npm run admin -- remove-sim ICCID
 *   npm run admin -- rebuild-list-index [--customer GROUP_ID]
 *   npm run admin -- feed FILE --queue-url URL [--from-line N] [--sqs-endpoint URL]
 *   npm run admin -- feed-rejections [--limit N]
 *   npm run admin -- resend-effect ORDER_ID --effect EFFECT [--queue-url URL] [--sqs-endpoint URL]
 *   npm run admin -- resume-order ORDER_ID [--queue-url URL] [--sqs-endpoint URL]
 *
 * Options (every command): --table NAME, --region REGION, --endpoint URL. The table defaults
 * to TABLE_NAME (else `sim-service`), the region to AWS_REGION / AWS_DEFAULT_REGION, the
 * endpoint to DYNAMODB_ENDPOINT (set it, or --endpoint, for DynamoDB Local). An issued token
 * or key is printed once, on its own line, and only its hash is stored. Exit codes: 0 done,
 * 1 refused (unknown user, customer or prefix ...), 2 usage error.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { prepareEffectResend, prepareReviewedOrder } from '../shared/fulfilment/manual-actions';
import type { FulfilmentMessage } from '../shared/fulfilment/message';
import {
  AdminError,
  issueApiKey,
  issueBearerToken,
  revokeApiKey,
  revokeBearerToken,
  setUserActive,
  type AdminDeps,
} from '../shared/auth/admin';
import { customerReceiptSecret, ReceiptSecretUnavailable } from '../shared/callbacks/customer-secret';
import { changeSim, parseSimChange, SimChangeRefused } from '../shared/sims/change-sim';
import { readSimByIccid } from '../shared/sims/sim-by-iccid';
import { removeSim } from '../shared/sims/sim-writes';
import { rebuildListIndex } from '../shared/sim-lists/rebuild';
import { key } from '../shared/db/keys';
import { progressBar } from './progress-bar';
import { feedRejectionLines, sendFeedFile } from './admin-feed';
import { topLevelCustomers } from './scan-items';

const usage = [
  'usage: npm run admin -- COMMAND [ARGUMENT] [--table NAME] [--region REGION] [--endpoint URL]',
  '  issue-token --user USER_ID        issue a bearer token (printed once)',
  '  issue-key --customer CUSTOMER_ID  issue an API key (printed once)',
  '  revoke-token PREFIX_OR_TOKEN      revoke a bearer token',
  '  revoke-key PREFIX_OR_KEY          revoke an API key',
  '  deactivate-user USER_ID           make a user (and all their tokens) inactive',
  '  activate-user USER_ID             make a user (and all their tokens) active again',
  '  webhook-secret --customer ID      print the whsec_ secret that signs the customer\'s SMS receipts',
  '  set-sim ICCID [--status STATUS] [--data-used-mb MB] [--customer CUSTOMER_ID]',
  '                                    change a SIM\'s status, month-to-date usage and/or owner (lifecycle events follow)',
  '  remove-sim ICCID                  remove a SIM (it leaves every list)',
  '  rebuild-list-index [--customer GROUP_ID]',
  '                                    build the SIM list index of groups filled by an earlier version (resumable)',
  '  feed FILE --queue-url URL [--from-line N] [--sqs-endpoint URL]',
  '                                    send a JSON Lines file to the operator-feed queue (resumable from a line)',
  '  feed-rejections [--limit N]       the operator feed\'s refused lines of the last 14 days (newest first, 100 by default)',
  '  resend-effect ORDER_ID --effect EFFECT  send again a fulfilment message whose outcome is unknown',
  '  resume-order ORDER_ID             fulfil an order a person reviewed (review_required -> paid)',
  '    (both: --queue-url FULFILMENT_QUEUE_URL [--sqs-endpoint URL] queues the payment event; without it, it is printed)',
].join('\n');

/** Where the CLI writes and what environment it reads (tests pass their own). */
export interface AdminIo {
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  err: (line: string) => void;
  /** Redraws a progress bar in place (a terminal); absent, progress is written as lines. */
  redraw?: (text: string) => void;
}

class UsageError extends Error {}

/** The options a command may read. */
interface CommandOptions {
  user?: string;
  customer?: string;
  status?: string;
  dataUsedMb?: string;
  effect?: string;
  queueUrl?: string;
  sqsEndpoint?: string;
  region?: string;
  fromLine?: string;
  limit?: string;
}

const commands: Record<string, (deps: AdminDeps, argument: string | undefined, options: CommandOptions, io: AdminIo) => Promise<void>> = {
  'issue-token': async (deps, _argument, options, io) => {
    if (!options.user) throw new UsageError('issue-token needs --user USER_ID');
    const issued = await issueBearerToken(deps, options.user);
    io.err(`Issued bearer token ${issued.prefix} for user ${options.user}. It is shown once; store it now:`);
    io.out(issued.value);
  },
  'issue-key': async (deps, _argument, options, io) => {
    if (!options.customer) throw new UsageError('issue-key needs --customer CUSTOMER_ID');
    const issued = await issueApiKey(deps, options.customer);
    io.err(`Issued API key ${issued.prefix} for customer ${options.customer}. It is shown once; store it now:`);
    io.out(issued.value);
  },
  'revoke-token': async (deps, argument, _options, io) => {
    if (!argument) throw new UsageError('revoke-token needs PREFIX_OR_TOKEN');
    io.out(`Revoked bearer token ${await revokeBearerToken(deps, argument)}`);
  },
  'revoke-key': async (deps, argument, _options, io) => {
    if (!argument) throw new UsageError('revoke-key needs PREFIX_OR_KEY');
    io.out(`Revoked API key ${await revokeApiKey(deps, argument)}`);
  },
  'deactivate-user': async (deps, argument, _options, io) => {
    if (!argument) throw new UsageError('deactivate-user needs USER_ID');
    io.out(`Deactivated user ${argument} (${await setUserActive(deps, argument, false)} tokens updated)`);
  },
  'activate-user': async (deps, argument, _options, io) => {
    if (!argument) throw new UsageError('activate-user needs USER_ID');
    io.out(`Activated user ${argument} (${await setUserActive(deps, argument, true)} tokens updated)`);
  },
};

// --- SMS receipts (issue #4) ---------------------------------------------------------------
/**
 * `webhook-secret --customer ID`: prints the Standard Webhooks secret (`whsec_...`) that signs
 * the delivery receipts of the customer's SMS (docs/sms.md). It is derived from
 * CALLBACK_SIGNING_SECRET, so the same command prints the same secret until that is rotated.
 */
commands['webhook-secret'] = async (deps, _argument, options, io) => {
  if (!options.customer) throw new UsageError('webhook-secret needs --customer CUSTOMER_ID');
  try {
    const secret = await customerReceiptSecret(deps, options.customer, io.env);
    io.err(`Receipt signing secret of customer ${options.customer} (verify webhook-signature with it):`);
    io.out(secret);
  } catch (error) {
    if (error instanceof ReceiptSecretUnavailable) throw new AdminError(error.message);
    throw error;
  }
};
// ---------------------------------------------------------------------------------------------

// --- Lifecycle events (issue #15) ------------------------------------------------------------
/**
 * `set-sim ICCID [--status STATUS] [--data-used-mb MB] [--customer CUSTOMER_ID]`: changes a SIM
 * through the SIM write path (shared/sims/change-sim.ts), against any table, a deployed one
 * included; the table's stream then keeps the lists exact and makes line.activated /
 * line.suspended / usage.updated for the webhook subscribers.
 */
commands['set-sim'] = async (deps, argument, options, io) => {
  if (!argument) throw new UsageError('set-sim needs ICCID');
  try {
    const change = parseSimChange(
      {
        ...(options.status !== undefined ? { status: options.status } : {}),
        ...(options.dataUsedMb !== undefined ? { data_used_mb: options.dataUsedMb } : {}),
        ...(options.customer !== undefined ? { customer: options.customer } : {}),
      },
      { owner: true },
    );
    const sim = await changeSim(deps, argument, change, Date.now());
    io.out(`SIM ${sim.iccid}: status ${sim.status}, data_used_mb ${sim.data_used_mb}${change.customer ? `, customer ${sim.customer_id}` : ''}`);
  } catch (error) {
    if (error instanceof SimChangeRefused) throw new AdminError(error.message);
    throw error;
  }
};

/** `remove-sim ICCID`: removes a SIM through the SIM write path; its list entries follow from the stream. */
commands['remove-sim'] = async (deps, argument, _options, io) => {
  if (!argument) throw new UsageError('remove-sim needs ICCID');
  const sim = await readSimByIccid(deps, argument);
  if (!sim || !(await removeSim(deps, sim.id))) throw new AdminError(`no SIM with ICCID ${argument}`);
  io.out(`Removed SIM ${argument} (id ${sim.id})`);
};

// --- SIM lists at fleet scale (issue #19) ----------------------------------------------------
/**
 * `rebuild-list-index [--customer GROUP_ID]`: builds the list index (shared/sim-lists) of one
 * customer group, or of every top-level group, of a table filled by an earlier version, with a
 * progress bar; a group already on the index is left alone, and a stopped run goes on where it
 * stopped. The maintain-sim-lists stream consumer must be running (it counts the SIMs the
 * rebuild marks). docs/deploy.md says when to run it.
 */
commands['rebuild-list-index'] = async (deps, _argument, options, io) => {
  const groups = options.customer ? [options.customer] : await topLevelCustomers(deps);
  if (options.customer) {
    const found = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: key.customer(options.customer) }));
    if (found.Item?.type !== 'customer') throw new AdminError(`no customer with id ${options.customer}`);
    if (found.Item.parent !== null) throw new AdminError(`${options.customer} is not a top-level customer group (its group is ${String((found.Item.path as string[])[0])})`);
  }
  for (const groupId of groups) {
    const bar = progressBar(io);
    const outcome = await rebuildListIndex(deps, groupId, { onProgress: bar.update, onWarning: (message) => io.err(`Warning: ${message}`) });
    bar.done();
    io.out(outcome === 'ready' ? `List index of ${groupId}: ready` : `List index of ${groupId}: already ready`);
  }
};

/** An SQS client for --queue-url (--sqs-endpoint: the local SQS emulator, with its fixed credentials unless some are set). */
const sqsClientOf = (options: CommandOptions, io: AdminIo): SQSClient => {
  const local = options.sqsEndpoint && !io.env.AWS_ACCESS_KEY_ID && !io.env.AWS_PROFILE;
  return new SQSClient({
    ...(options.region ? { region: options.region } : {}),
    ...(options.sqsEndpoint ? { endpoint: options.sqsEndpoint } : {}),
    ...(local ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
};

// --- Operator feed (issue #20, docs/feed.md) -------------------------------------------------
/** A positive whole number option. */
const positiveInteger = (value: string | undefined, name: string, fallback: number): number => {
  if (value === undefined) return fallback;
  if (!/^[1-9]\d{0,9}$/.test(value)) throw new UsageError(`${name} must be a whole number from 1`);
  return Number(value);
};

/**
 * `feed FILE --queue-url URL [--from-line N]`: sends a JSON Lines file of any size to the
 * operator-feed queue (output OperatorFeedQueueUrl), with a progress bar; a stopped run says the
 * line to go on from.
 */
commands.feed = async (_deps, argument, options, io) => {
  if (!argument || !options.queueUrl) throw new UsageError('feed needs FILE and --queue-url OPERATOR_FEED_QUEUE_URL');
  const fromLine = positiveInteger(options.fromLine, '--from-line', 1);
  const client = sqsClientOf(options, io);
  try {
    const sent = await sendFeedFile(client, options.queueUrl, argument, fromLine, io);
    io.out(`Sent lines ${sent.firstLine} to ${sent.lastLine} of ${argument} in ${sent.messages} messages${sent.oversized.length > 0 ? ` (${sent.oversized.length} refused as too long)` : ''}`);
  } finally {
    client.destroy();
  }
};

/** `feed-rejections [--limit N]`: the refused lines the operator feed's consumer kept (14 days). */
commands['feed-rejections'] = async (deps, _argument, options, io) => {
  for (const line of await feedRejectionLines(deps, Date.now(), positiveInteger(options.limit, '--limit', 100))) io.out(line);
};

// --- Fulfilment, manual steps of the runbook (issue #14, docs/operations.md) --------------------
/**
 * Puts a payment event on the fulfilment queue when `--queue-url` is given (`--sqs-endpoint`
 * for the local SQS emulator), else prints the body and the aws CLI command that sends it.
 */
const queuePayment = async (message: FulfilmentMessage, options: CommandOptions, io: AdminIo): Promise<void> => {
  const body = JSON.stringify(message);
  if (!options.queueUrl) {
    io.err('Put this payment event on the fulfilment queue (output FulfilmentQueueUrl) to let fulfil-order work on the order:');
    io.out(`aws sqs send-message --queue-url <FulfilmentQueueUrl> --message-body '${body}'`);
    return;
  }
  const client = sqsClientOf(options, io);
  try {
    await client.send(new SendMessageCommand({ QueueUrl: options.queueUrl, MessageBody: body }));
  } finally {
    client.destroy();
  }
  io.out(`Queued ${message.event_id} for order ${message.order_id}`);
};

/** `resend-effect ORDER_ID --effect EFFECT`: docs/operations.md, effect-outcome-unknown. */
commands['resend-effect'] = async (deps, argument, options, io) => {
  if (!argument || !options.effect) throw new UsageError('resend-effect needs ORDER_ID and --effect EFFECT');
  const message = await prepareEffectResend({ ...deps, now: () => new Date() }, argument, options.effect);
  io.err(`Effect ${options.effect} of order ${argument} cleared and the order moved back to paid.`);
  await queuePayment(message, options, io);
};

/** `resume-order ORDER_ID`: docs/operations.md, order-flagged-for-review. */
commands['resume-order'] = async (deps, argument, options, io) => {
  if (!argument) throw new UsageError('resume-order needs ORDER_ID');
  const message = await prepareReviewedOrder({ ...deps, now: () => new Date() }, argument);
  io.err(`Order ${argument} moved from review_required to paid.`);
  await queuePayment(message, options, io);
};
// ---------------------------------------------------------------------------------------------

/** Runs one admin command; resolves to the exit code. */
export const runAdmin = async (args: string[], io: AdminIo): Promise<number> => {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        user: { type: 'string' },
        customer: { type: 'string' },
        status: { type: 'string' },
        'data-used-mb': { type: 'string' },
        effect: { type: 'string' },
        'queue-url': { type: 'string' },
        'sqs-endpoint': { type: 'string' },
        'from-line': { type: 'string' },
        limit: { type: 'string' },
        table: { type: 'string' },
        region: { type: 'string' },
        endpoint: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    io.err(`${(error as Error).message}\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(usage);
    return 0;
  }
  const [commandName, argument, ...extra] = positionals;
  const command = commandName ? commands[commandName] : undefined;
  if (!command || extra.length > 0) {
    io.err(commandName && !command ? `unknown command "${commandName}"\n${usage}` : usage);
    return 2;
  }
  const env = io.env;
  const tableName = values.table ?? env.TABLE_NAME ?? 'sim-service';
  const endpoint = values.endpoint ?? (env.DYNAMODB_ENDPOINT || undefined);
  const region = values.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? (endpoint ? 'eu-west-2' : undefined);
  const localCredentials = endpoint && !env.AWS_ACCESS_KEY_ID && !env.AWS_PROFILE;
  const client = new DynamoDBClient({
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint } : {}),
    ...(localCredentials ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  const db = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  try {
    await command(
      { db, tableName },
      argument,
      {
        user: values.user,
        customer: values.customer,
        status: values.status,
        dataUsedMb: values['data-used-mb'],
        effect: values.effect,
        queueUrl: values['queue-url'],
        sqsEndpoint: values['sqs-endpoint'],
        fromLine: values['from-line'],
        limit: values.limit,
        region,
      },
      io,
    );
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n${usage}`);
      return 2;
    }
    io.err(error instanceof AdminError ? `Refused: ${error.message}` : `Failed: ${(error as Error).message}`);
    return 1;
  } finally {
    client.destroy();
  }
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await runAdmin(process.argv.slice(2), {
    env: process.env,
    out: (line) => console.log(line),
    err: (line) => console.error(line),
    ...(process.stderr.isTTY ? { redraw: (text: string) => process.stderr.write(text) } : {}),
  });
}
