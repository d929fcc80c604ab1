/**
 * `npm run invoke -- NAME EVENT_FILE`: invokes one handler once with an event from a file,
 * like `sam local invoke -e`. NAME is a route name (shared/topology/routes.ts) or a queue, stream or
 * topic consumer name (shared/topology/). A throwaway local runtime (DynamoDB Local, the SQS
 * emulator, the SMS simulator, the demo seed or SEED_FILE) is started for it and stopped
 * afterwards. The handler's result is printed as JSON on stdout; everything else (logs)
 * goes to stderr. Exit 0 when the handler returned; 1 when it threw (its error is printed
 * as Lambda reports it) or the name or file is wrong. Run it as `npm run -s invoke -- ...`:
 * npm itself prints a `> script` banner on stdout unless told to be silent.
 *
 * An event for the Stripe webhook is signed again with the runtime's STRIPE_WEBHOOK_SECRET
 * just before the call (local/event-fixtures.ts withFreshStripeSignature), as Stripe signs
 * at delivery: a Stripe signature expires after five minutes, so the committed fixture could
 * never verify otherwise. `--keep-signature` sends the file's signature as it is.
 */
import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { allRoutes } from '../shared/topology/routes';
import { queueDefinitions } from '../shared/topology/queues';
import { streamConsumers } from '../shared/topology/streams';
import { topicConsumers } from '../shared/topology/topics';
import { schedules } from '../shared/topology/schedules';
import { forwardedEnv, readSeed, UsageError } from './cli-options';
import { assertJavaPresent } from './dynamodb-local';
import { withFreshStripeSignature } from './event-fixtures';
import { invokeHandler, loadHandler } from './handler-loader';
import { lambdaContext, type LocalFunction } from './lambda-context';
import { startLocalRuntime, type LocalRuntime } from './runtime';

const usage =
  'Usage: npm run -s invoke -- NAME EVENT_FILE [--keep-signature]   (e.g. npm run -s invoke -- default-fallback events/default-fallback.json)';

/** The Stripe webhook's path in the route table. */
const stripeWebhookPath = '/api/v1/webhooks/stripe';

/** Every invocable function: routes, queue, stream and topic consumers, scheduled functions, by name. */
const invocableFunctions = (): Map<string, LocalFunction & { handler: string }> => {
  const functions = new Map<string, LocalFunction & { handler: string }>();
  for (const route of allRoutes()) {
    functions.set(route.name, { name: route.name, handler: route.handler, timeoutSeconds: route.timeoutSeconds, memoryMb: route.memoryMb });
  }
  for (const consumer of streamConsumers) {
    functions.set(consumer.name, { name: consumer.name, handler: consumer.handler, timeoutSeconds: consumer.timeoutSeconds });
  }
  for (const queue of queueDefinitions) {
    functions.set(queue.consumer.name, { name: queue.consumer.name, handler: queue.consumer.handler, timeoutSeconds: queue.consumerTimeoutSeconds });
  }
  for (const topic of topicConsumers) {
    functions.set(topic.consumer.name, { name: topic.consumer.name, handler: topic.consumer.handler, timeoutSeconds: topic.timeoutSeconds });
  }
  for (const schedule of schedules) {
    functions.set(schedule.name, { name: schedule.name, handler: schedule.handler, timeoutSeconds: schedule.timeoutSeconds });
  }
  return functions;
};

const readEvent = (file: string): unknown => {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read the event file ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`The event file ${file} is not valid JSON: ${(error as Error).message}`);
  }
};

const main = async (): Promise<number> => {
  const args = process.argv.slice(2);
  const keepSignature = args.includes('--keep-signature');
  const [name, file, ...rest] = args.filter((arg) => arg !== '--keep-signature');
  if (!name || !file || rest.length > 0) throw new UsageError(usage);
  const functions = invocableFunctions();
  const fn = functions.get(name);
  if (!fn) throw new UsageError(`Unknown function ${name}. Known: ${[...functions.keys()].sort().join(', ')}`);
  let event = readEvent(file);
  const { seed } = readSeed();
  assertJavaPresent();

  // stdout carries the result only: handler and runtime logs go to stderr, those of the
  // console and the JSON lines the logger writes to stdout itself (shared/observability/logger.ts).
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  const writeResult = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

  let runtime: LocalRuntime | undefined;
  try {
    runtime = await startLocalRuntime({ seed, env: forwardedEnv(), quiet: true });
    const handler = await loadHandler(fn.handler);
    const context = lambdaContext(fn);
    const stripeWebhook = allRoutes().find((route) => route.handler === fn.handler)?.path === stripeWebhookPath;
    if (stripeWebhook && !keepSignature && runtime.env.STRIPE_WEBHOOK_SECRET) {
      event = withFreshStripeSignature(event as APIGatewayProxyEvent, runtime.env.STRIPE_WEBHOOK_SECRET);
      console.error('Stripe-Signature made again with the runtime\'s STRIPE_WEBHOOK_SECRET (--keep-signature sends the file\'s)');
    }
    try {
      const result = await invokeHandler(handler, event, context, (fn.timeoutSeconds ?? 10) * 1000);
      writeResult(`${JSON.stringify(result ?? null, null, 2)}\n`);
      return 0;
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      writeResult(
        `${JSON.stringify({ errorType: failure.name, errorMessage: failure.message, trace: (failure.stack ?? '').split('\n') }, null, 2)}\n`,
      );
      return 1;
    }
  } finally {
    await runtime?.stop();
  }
};

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof UsageError ? error.message : `invoke failed: ${(error as Error).message}`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
