import { createServer } from 'node:net';

/**
 * Ports are picked from here: below the ephemeral ranges of Linux (32768-60999) and macOS
 * (49152-65535), so neither another process's `listen(0)` nor an outgoing connection's local
 * port takes the port between the pick and the caller's own bind (CI saw DynamoDB Local lose
 * an OS-picked port that way).
 */
const FIRST = 20_000;
const LAST = 32_000;
const ATTEMPTS = 50;

const bindable = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** A TCP port that is free on 127.0.0.1 right now, picked at random below the ephemeral range. */
export const freePort = async (): Promise<number> => {
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const port = FIRST + Math.floor(Math.random() * (LAST - FIRST));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port found in ${ATTEMPTS} tries between ${FIRST} and ${LAST}`);
};
