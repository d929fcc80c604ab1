import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A stand-in in front of the SMS provider that can be taken down and brought back. */
export interface ProviderSwitch {
  /** Base URL to give the service as SMS_PROVIDER_URL. */
  url: string;
  /** Where requests go while up (the runtime's SMS simulator, known once it started). */
  target: string | undefined;
  /** While true, every connection is dropped without an answer, as a provider that is down. */
  down: boolean;
  stop(): Promise<void>;
}

const readBody = async (request: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/**
 * Starts the switch on a free port. The service reads SMS_PROVIDER_URL once at init
 * (shared/config/define-function.ts), so a test cannot point it elsewhere halfway through;
 * it points it here instead and flips `down`. While up, each request is passed to `target`
 * unchanged (method, path, headers, body) and its answer passed back.
 */
export const startProviderSwitch = async (): Promise<ProviderSwitch> => {
  const state = { target: undefined as string | undefined, down: false };
  const server = createServer(async (request, response) => {
    if (state.down || !state.target) {
      request.socket.destroy();
      return;
    }
    const body = await readBody(request);
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(([name, value]) => typeof value === 'string' && !['host', 'content-length', 'connection'].includes(name)),
    ) as Record<string, string>;
    const answer = await fetch(`${state.target}${request.url ?? '/'}`, { method: request.method, headers, body: body.length > 0 ? body : undefined });
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get target() {
      return state.target;
    },
    set target(value) {
      state.target = value;
    },
    get down() {
      return state.down;
    },
    set down(value) {
      state.down = value;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
