/**
 * `npm start`: the whole service on this machine (LOCAL-CONTRACT.md). Starts DynamoDB Local,
 * the SQS emulator, the SMS simulator, the API gateway and the queue pollers, loads the seed,
 * prints the demo credentials and example requests, then exactly one line
 * `Local API ready at <base URL>`. Stops everything on SIGINT / SIGTERM and exits 0.
 *
 *     npm start                      # PORT=3000, the demo seed, everything in memory
 *     PORT=0 npm start               # a free port
 *     npm start -- --persist DIR     # DynamoDB Local keeps its data in DIR
 */
import { resolve } from 'node:path';
import { forwardedEnv, readSeed, UsageError } from './cli-options';
import { demoCredentials } from './demo-credentials';
import { assertJavaPresent } from './dynamodb-local';
import { startLocalRuntime, type LocalRuntime } from './runtime';

const parseArguments = (args: string[]): { persistDir?: string } => {
  let persistDir: string | undefined;
  for (let index = 0; index < args.length; index += 1) {
    const argument = args[index]!;
    if (argument === '--persist') {
      persistDir = args[++index];
      if (!persistDir) throw new UsageError('--persist needs a folder: npm start -- --persist .local-data');
    } else if (argument.startsWith('--persist=')) {
      persistDir = argument.slice('--persist='.length);
    } else {
      throw new UsageError(`Unknown argument ${argument}. Usage: npm start [-- --persist DIR]`);
    }
  }
  return { persistDir: persistDir ? resolve(persistDir) : undefined };
};

const parsePort = (value: string | undefined): number => {
  if (value === undefined || value === '') return 3000;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`PORT must be a port number (0 picks a free one), not ${JSON.stringify(value)}`);
  return port;
};

const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

const banner = (runtime: LocalRuntime, seed: unknown, seedNote: string, persistDir: string | undefined): string[] => {
  const demo = demoCredentials(seed);
  const base = runtime.baseUrl;
  const lines = [
    '',
    'SIM service, local runtime',
    `  API                 ${base}  (Area A: ${base}/developer/api/ , Area B: ${base}/api/v1/)`,
    `  DynamoDB Local      ${runtime.dynamodbEndpoint}  table ${runtime.tableName}${persistDir ? `, data kept in ${persistDir}` : ', in memory'}`,
    `  SQS emulator        ${runtime.sqsEndpoint}  queues in memory`,
    `  SMS simulator       ${runtime.smsSimulatorUrl}${runtime.env.SMS_PROVIDER_URL === runtime.smsSimulatorUrl ? '' : `  (not used: SMS_PROVIDER_URL=${runtime.env.SMS_PROVIDER_URL})`}`,
    `  E-mail outbox       ${runtime.env.EMAIL_OUTBOX_DIR}`,
    `  Seed                ${
      seed === undefined
        ? seedNote
        : runtime.seeded
          ? `${seedNote} (${runtime.seeded.items} items)`
          : `${seedNote} not loaded: the table already existed in ${persistDir}`
    }`,
    '',
    'Demo credentials',
    `  Area A bearer token       ${demo.bearerToken ?? '(none in the seed)'}`,
    `  Area A API key            ${demo.apiKey ?? '(none in the seed)'}`,
    `  Storefront service token  ${runtime.env.STOREFRONT_SERVICE_TOKEN}`,
    `  Stripe webhook secret     ${runtime.env.STRIPE_WEBHOOK_SECRET}`,
    `  Stripe                    ${runtime.env.STRIPE_SECRET_KEY ? `configured${runtime.env.STRIPE_API_BASE ? ` (${runtime.env.STRIPE_API_BASE})` : ''}` : 'not configured (Area B checkouts answer 503 stripe_not_configured)'}`,
    '',
    'Try',
  ];
  if (demo.bearerToken && demo.apiKey) {
    const auth = `-H ${quote(`Authorization: Bearer ${demo.bearerToken}`)} -H ${quote(`X-Customer-API-Key: ${demo.apiKey}`)}`;
    lines.push(`  curl -s ${auth} ${base}/developer/api/sims/`);
    if (demo.simId !== undefined) lines.push(`  curl -s ${auth} ${base}/developer/api/sims/${demo.simId}/`);
    lines.push(`  curl -s -i ${auth} ${base}/developer/api/no-such-path`);
  } else {
    lines.push('  (the seed has no developer token and API key of one customer group to call Area A with)');
    lines.push(`  curl -s -i ${base}/no-such-path`);
  }
  lines.push('');
  return lines;
};

const main = async (): Promise<void> => {
  try {
    assertJavaPresent();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
  let starting: Promise<LocalRuntime | undefined> = Promise.resolve(undefined);
  let stopping = false;
  const shutdown = (reason: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${reason}: stopping the local runtime ...`);
    const force = setTimeout(() => {
      console.error('The local runtime did not stop within 15 s; exiting anyway.');
      process.exit(1);
    }, 15_000);
    force.unref();
    // A signal during start-up stops the runtime once it is up (a failed start cleans up itself).
    starting
      .catch(() => undefined)
      .then((runtime) => runtime?.stop())
      .then(() => {
        console.log('Stopped.');
        process.exit(0);
      })
      .catch((error: unknown) => {
        console.error(`Stopping failed: ${(error as Error).message}`);
        process.exit(1);
      });
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => shutdown(signal));
  // Orphaned (whatever started us died without a signal to us): stop rather than linger.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) shutdown('parent process exited');
  }, 1000).unref();

  try {
    const { persistDir } = parseArguments(process.argv.slice(2));
    const port = parsePort(process.env.PORT);
    const { seed, source } = readSeed();
    starting = startLocalRuntime({ port, seed, env: forwardedEnv(), persistDir });
    const runtime = (await starting)!;
    if (stopping) return;
    for (const line of banner(runtime, seed, source, persistDir)) console.log(line);
    console.log(`Local API ready at ${runtime.baseUrl}`);
  } catch (error) {
    if (stopping) return;
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      console.error(`Port ${process.env.PORT ?? 3000} is in use: set PORT to another port, or PORT=0 for a free one.`);
      process.exit(1);
    }
    console.error(error instanceof UsageError ? error.message : `The local runtime could not start: ${(error as Error).message}`);
    process.exit(1);
  }
};

await main();
