/**
 * Administration of Area A credentials, against any table (local or deployed):
 *
 *   npm run admin -- issue-token --user USER_ID
 *   npm run admin -- issue-key --customer CUSTOMER_ID [--scopes LIST]
 *   npm run admin -- set-key-scopes PREFIX_OR_KEY --scopes LIST
 *   npm run admin -- revoke-token PREFIX_OR_TOKEN
 *   npm run admin -- revoke-key PREFIX_OR_KEY
 *   npm run admin -- deactivate-user USER_ID
 *   npm run admin -- activate-user USER_ID
 *   npm run admin -- webhook-secret --customer CUSTOMER_ID
 *   npm run admin -- set-sim ICCID [--status STATUS] [--data-used-mb MB] [--customer CUSTOMER_ID]
 *   npm run admin -- remove-sim ICCID
 *   npm run admin -- rebuild-list-index [--customer GROUP_ID]
 *   npm run admin -- replay-stream-record FILE [--queue-url URL] [--sqs-endpoint URL]
 *   npm run admin -- feed FILE --queue-url URL [--from-line N] [--sqs-endpoint URL]
 *   npm run admin -- feed-rejections [--limit N]
 *   npm run admin -- resend-effect ORDER_ID --effect EFFECT [--queue-url URL] [--sqs-endpoint URL]
 *   npm run admin -- resume-order ORDER_ID [--queue-url URL] [--sqs-endpoint URL]
 *
 * Options (every command): --table NAME, --region REGION, --endpoint URL. With none of them and
 * no TABLE_NAME or DYNAMODB_ENDPOINT, a local runtime (`npm start`, at LOCAL_API_URL or
 * 127.0.0.1:PORT/3000) is asked where its data is and used, its queues too (./local-target.ts);
 * else the table defaults to TABLE_NAME (else `sim-service`), the region to AWS_REGION /
 * AWS_DEFAULT_REGION, the endpoint to DYNAMODB_ENDPOINT (set it, or --endpoint, for DynamoDB
 * Local). No region at all is a usage error naming --region. An issued token
 * or key is printed once, on its own line, and only its hash is stored. Exit codes: 0 done,
 * 1 refused (unknown user, customer or prefix ...), 2 usage error, or an argument that breaks
 * its rule (./arguments.ts: ids, ICCIDs, statuses, amounts; one line, before any read or write).
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AdminError } from '../shared/auth/admin';
import { ArgumentRefused, checkArguments } from './arguments';
import { UsageError, type AdminCommand, type AdminIo } from './command';
import { credentialCommands } from './credentials';
import { feedCommands } from './feed';
import { findLocalRuntime, localBaseUrl, queueOfCommand, targetUnnamed } from './local-target';
import { fulfilmentCommands } from './fulfilment';
import { simCommands } from './sims';
import { streamRecordCommands } from './stream-records';

export type { AdminIo } from './command';

const usage = [
  'usage: npm run admin -- COMMAND [ARGUMENT] [--table NAME] [--region REGION] [--endpoint URL]',
  '  issue-token --user USER_ID        issue a bearer token (printed once)',
  '  issue-key --customer CUSTOMER_ID [--scopes LIST]',
  '                                    issue an API key (printed once); LIST: comma-separated sims:read, sms:send,',
  '                                    sims:manage (default sims:read,sms:send)',
  '  set-key-scopes PREFIX_OR_KEY --scopes LIST',
  '                                    set what an API key may do (effective on its next request)',
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
  '  replay-stream-record FILE [--queue-url WEBHOOK_DELIVERIES_QUEUE_URL] [--sqs-endpoint URL]',
  '                                    replay a record a stream consumer set aside (FILE: its failure queue message body)',
  '  feed FILE --queue-url URL [--from-line N] [--sqs-endpoint URL]',
  '                                    send a JSON Lines file to the operator-feed queue (resumable from a line)',
  '  feed-rejections [--limit N]       the operator feed\'s refused lines of the last 14 days (newest first, 100 by default)',
  '  resend-effect ORDER_ID --effect EFFECT  send again a fulfilment message whose outcome is unknown',
  '  resume-order ORDER_ID             fulfil an order a person reviewed (review_required -> paid)',
  '    (both: --queue-url FULFILMENT_QUEUE_URL [--sqs-endpoint URL] queues the payment event; without it, it is printed)',
].join('\n');

/** The commands by name: a Map, so that `constructor` or `toString` is an unknown command, not Object's. */
const commands = new Map<string, AdminCommand>(
  [credentialCommands, simCommands, streamRecordCommands, feedCommands, fulfilmentCommands].flatMap((group) => Object.entries(group)),
);

/** Whether an error (or the error it wraps: a feed upload that stopped) is the SDK's "Region is missing". */
const isRegionMissing = (error: unknown): boolean =>
  error instanceof Error && (/^Region is missing/.test(error.message) || (error.cause !== undefined && isRegionMissing(error.cause)));

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
        scopes: { type: 'string' },
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
  const command = commandName ? commands.get(commandName) : undefined;
  if (!command || extra.length > 0) {
    io.err(commandName && !command ? `unknown command "${commandName}"\n${usage}` : usage);
    return 2;
  }
  try {
    checkArguments(commandName!, argument, values);
  } catch (error) {
    if (!(error instanceof ArgumentRefused)) throw error;
    io.err(error.message);
    return 2;
  }
  const env = io.env;
  // Beside npm start, with nothing named, the local runtime says where its data is (./local-target.ts).
  const local = targetUnnamed(values, env) ? await findLocalRuntime(env) : undefined;
  if (local) io.err(`Local runtime at ${local.baseUrl}: table ${local.targets.table} on ${local.targets.dynamodb_endpoint}`);
  const localQueue = local && queueOfCommand.has(commandName!) ? local.targets.queues[queueOfCommand.get(commandName!)!] : undefined;
  const tableName = values.table ?? local?.targets.table ?? env.TABLE_NAME ?? 'sim-service';
  const endpoint = values.endpoint ?? local?.targets.dynamodb_endpoint ?? (env.DYNAMODB_ENDPOINT || undefined);
  const region = values.region ?? local?.targets.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? (endpoint ? 'eu-west-2' : undefined);
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
        queueUrl: values['queue-url'] ?? localQueue,
        sqsEndpoint: values['sqs-endpoint'] ?? (localQueue ? local!.targets.sqs_endpoint : undefined),
        fromLine: values['from-line'],
        limit: values.limit,
        scopes: values.scopes,
        region,
      },
      io,
    );
    return 0;
  } catch (error) {
    if (error instanceof ArgumentRefused) {
      io.err(error.message);
      return 2;
    }
    if (error instanceof UsageError) {
      io.err(`${error.message}\n${usage}`);
      return 2;
    }
    // The SDK found no region anywhere (flags, environment, AWS config): say which flag, not what failed after it.
    if (isRegionMissing(error)) {
      io.err(
        `No AWS region: give --region REGION (or set AWS_REGION) for a deployed table, or start the local runtime (npm start) and run this again: with no --table, --endpoint or --region the CLI finds it at ${localBaseUrl(env)} (LOCAL_API_URL or PORT to look elsewhere).`,
      );
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
