/**
 * `npm start`: the whole service on this machine (LOCAL-CONTRACT.md). Starts DynamoDB Local,
 * the SQS emulator, the SMS simulator, the API gateway and the queue pollers, loads the seed,
 * prints the demo credentials and example requests, then exactly one line
 * `Local API ready at <base URL>`. Stops everything on SIGINT / SIGTERM and exits 0, at any
 * moment: the signal handlers are installed before the heavy modules (AWS SDK, DynamoDB
 * Local, the SQS emulator) are even loaded, and a signal during start-up stops the runtime
 * as soon as it is up. `npm start` runs this through local/start.mjs (plain `node`, the
 * tsx loader registered in process), not the tsx CLI, whose wrapper process relays signals
 * and can end with 143 instead of our exit code.
 *
 *     npm start                      # PORT=3000, the demo seed, everything in memory
 *     PORT=0 npm start               # a free port
 *     npm start -- --persist DIR     # DynamoDB Local's data and the queues kept in DIR
 *     npm start -- --bundled         # the functions from the esbuild bundles the stack deploys
 *     npm start -- --pretty          # the JSON log lines rendered for people (local/pretty-logs.ts)
 */
import { createServer } from 'node:net';
import { demoSeedFile, forwardedEnv, parseArguments, readSeed, UsageError } from './cli-options';
import { prettyOutput } from './pretty-logs';
import type { LocalRuntime } from './runtime';

const parsePort = (value: string | undefined): number => {
  if (value === undefined || value === '') return 3000;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`PORT must be a port number (0 picks a free one), not ${JSON.stringify(value)}`);
  return port;
};

/**
 * Resolves when `port` (not 0) can be listened on where the gateway listens (127.0.0.1);
 * rejects with the server's EADDRINUSE (or EACCES) otherwise. The port is closed again at once.
 */
const assertPortFree = (port: number): Promise<void> =>
  port === 0
    ? Promise.resolve()
    : new Promise((resolve, reject) => {
        const probe = createServer();
        probe.once('error', reject);
        probe.listen({ port, host: '127.0.0.1', exclusive: true }, () => probe.close(() => resolve()));
      });

const main = async (): Promise<void> => {
  let starting: Promise<LocalRuntime | undefined> = Promise.resolve(undefined);
  let stopping = false;
  const shutdown = (reason: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${reason}: stopping the local runtime ...`);
    // A signal during start-up stops the runtime once it is up (a failed start cleans up
    // itself); the 15 s limit counts from then, as a start may take longer on a busy machine.
    starting
      .catch(() => undefined)
      .then((runtime) => {
        setTimeout(() => {
          console.error('The local runtime did not stop within 15 s; exiting anyway.');
          process.exit(1);
        }, 15_000).unref();
        return runtime?.stop();
      })
      .then(() => {
        console.log('Stopped.');
        process.exit(0);
      })
      .catch((error: unknown) => {
        console.error(`Stopping failed: ${(error as Error).message}`);
        process.exit(1);
      });
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => shutdown(signal));
    // Hand over from local/start.mjs, whose handlers exit at once (nothing was started then).
    for (const listener of process.listeners(signal)) if ('beforeStart' in listener) process.off(signal, listener);
  }
  // Orphaned (whatever started us died without a signal to us): stop rather than linger.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) shutdown('parent process exited');
  }, 1000).unref();

  try {
    const { persistDir, bundled, pretty } = parseArguments(process.argv.slice(2));
    const port = parsePort(process.env.PORT);
    // Before anything is started (DynamoDB Local's JVM takes seconds): the one port we are told to use must be free.
    await assertPortFree(port);
    // Loaded only now, after the signal handlers: a signal while they load still stops cleanly.
    const [{ assertJavaPresent }, { startLocalRuntime }, { bannerLines }] = await Promise.all([
      import('./dynamodb-local'),
      import('./runtime'),
      import('./start-banner'),
    ]);
    if (stopping) return;
    try {
      assertJavaPresent();
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (pretty) {
      prettyOutput(process.stdout);
      prettyOutput(process.stderr);
    }
    const { seed, source } = readSeed();
    const configured = forwardedEnv();
    starting = startLocalRuntime({
      port,
      seed,
      env: configured,
      persistDir,
      bundled,
      announce: (line) => console.log(line),
      // The demo data's credentials are public (the banner prints them whole): the reference page fills them in.
      prefillReferenceCredentials: source === demoSeedFile,
    });
    const runtime = (await starting)!;
    if (stopping) return;
    for (const line of bannerLines({ runtime, seed, seedSource: source, persistDir, configured })) console.log(line);
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
