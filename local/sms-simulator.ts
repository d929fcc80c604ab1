import { createHmac, randomUUID } from 'node:crypto';
import { formatLine, logger, logOutput } from '../shared/observability/logger';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer } from './gateway';
import { pendingTimers } from './pending-timers';

/** Delivery outcomes the simulator reports. */
export type SmsOutcome = 'delivered' | 'expired' | 'failed';

const outcomes: SmsOutcome[] = ['delivered', 'expired', 'failed'];

/** A message the simulator accepted, with what became of its receipt. */
export interface SimulatedMessage {
  provider_message_id: string;
  reference: string;
  to: string;
  text: string;
  receipt_url: string;
  received_at: string;
  outcome: SmsOutcome;
  /** pending until the receipt was posted; then the receipt URL's HTTP status, or the error. */
  receipt: { state: 'pending' | 'posted' | 'failed'; status?: number; error?: string };
}

/** Options of the SMS network simulator. */
export interface SmsSimulatorOptions {
  /** The bearer token submissions must carry (SMS_PROVIDER_TOKEN). */
  token: string;
  /** Key of the receipts' HMAC signature (SMS_RECEIPT_SECRET). */
  receiptSecret: string;
  /** Delay before a receipt is posted (default SMS_SIMULATOR_DELAY_MS or 200). */
  delayMs?: number;
  /** Outcome when the text has no marker (default SMS_SIMULATOR_OUTCOME or delivered). */
  outcome?: SmsOutcome;
  /** Port (default a free one). */
  port?: number;
  /** No log line per message and receipt. */
  quiet?: boolean;
  log?: (line: string) => void;
}

/** A running SMS simulator. */
export interface SmsSimulator {
  /** Base URL, e.g. `http://127.0.0.1:40123` (SMS_PROVIDER_URL). */
  url: string;
  /** The messages accepted so far, oldest first. */
  messages(): SimulatedMessage[];
  /** Stops the server; receipts not yet posted are dropped. */
  stop(): Promise<void>;
}

/** The `X-Provider-Signature` value of a receipt body: `sha256=` and the hex HMAC-SHA256. */
export const receiptSignature = (rawBody: string, secret: string): string =>
  `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;

/** Reads the simulator's settings from the environment (SMS_SIMULATOR_DELAY_MS, SMS_SIMULATOR_OUTCOME). */
export const simulatorSettingsFromEnv = (
  env: Record<string, string | undefined>,
): Pick<SmsSimulatorOptions, 'delayMs' | 'outcome'> => {
  const delay = env.SMS_SIMULATOR_DELAY_MS;
  const outcome = env.SMS_SIMULATOR_OUTCOME;
  if (delay !== undefined && delay !== '' && !(Number.isFinite(Number(delay)) && Number(delay) >= 0)) {
    throw new Error(`SMS_SIMULATOR_DELAY_MS must be a number of milliseconds, not ${JSON.stringify(delay)}`);
  }
  if (outcome !== undefined && outcome !== '' && !outcomes.includes(outcome as SmsOutcome)) {
    throw new Error(`SMS_SIMULATOR_OUTCOME must be one of ${outcomes.join(', ')}, not ${JSON.stringify(outcome)}`);
  }
  return {
    ...(delay ? { delayMs: Number(delay) } : {}),
    ...(outcome ? { outcome: outcome as SmsOutcome } : {}),
  };
};

const send = (response: ServerResponse, status: number, body: unknown): void => {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
};

const readText = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });

/** The outcome of a message: a `[expired]` / `[failed]` marker in the text, else the default. */
export const outcomeOf = (text: string, fallback: SmsOutcome): SmsOutcome => {
  if (text.includes('[expired]')) return 'expired';
  if (text.includes('[failed]')) return 'failed';
  return fallback;
};

/**
 * Starts the local SMS network simulator (docs/sms-provider-api.md): `POST /messages` with the
 * right bearer token is accepted with 202 and, after the configured delay, a receipt signed
 * with `X-Provider-Signature` is posted to the message's `receipt_url`; a text containing
 * `[provider-error]` is refused with 500. `GET /messages` lists what it received. A receipt
 * that cannot be posted (no server, a non-2xx answer) is logged and recorded, never fatal.
 */
export const startSmsSimulator = async (options: SmsSimulatorOptions): Promise<SmsSimulator> => {
  const delayMs = options.delayMs ?? 200;
  const defaultOutcome = options.outcome ?? 'delivered';
  const log = options.log ?? ((line: string) => logOutput.write(line, 'INFO'));
  const received: SimulatedMessage[] = [];
  const { later, cancelAll } = pendingTimers();
  const inFlight = new Set<AbortController>();

  const postReceipt = async (message: SimulatedMessage): Promise<void> => {
    const body = JSON.stringify({
      reference: message.reference,
      provider_message_id: message.provider_message_id,
      status: message.outcome,
      occurred_at: new Date().toISOString(),
    });
    const controller = new AbortController();
    inFlight.add(controller);
    const timeout = setTimeout(() => controller.abort(), 10_000);
    try {
      const response = await fetch(message.receipt_url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Provider-Signature': receiptSignature(body, options.receiptSecret) },
        body,
        signal: controller.signal,
      });
      await response.arrayBuffer().catch(() => undefined);
      message.receipt = { state: response.ok ? 'posted' : 'failed', status: response.status };
    } catch (error) {
      message.receipt = { state: 'failed', error: (error as Error).message };
    } finally {
      clearTimeout(timeout);
      inFlight.delete(controller);
    }
    const fields = {
      component: 'sms-simulator',
      message_id: message.reference,
      status: message.outcome,
      receipt_url: message.receipt_url,
      ...(message.receipt.status !== undefined ? { http_status: message.receipt.status } : {}),
      ...(message.receipt.error ? { error: message.receipt.error } : {}),
    };
    if (message.receipt.state !== 'posted') logger.warn('sms receipt could not be posted', fields);
    else if (!options.quiet) log(formatLine('INFO', 'sms receipt posted', fields));
  };

  const submit = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (request.headers.authorization !== `Bearer ${options.token}`) {
      send(response, 401, { detail: 'Missing or invalid bearer token.', code: 'unauthorized' });
      return;
    }
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(await readText(request)) as Record<string, unknown>;
    } catch {
      send(response, 400, { detail: 'The body is not valid JSON.', code: 'invalid_json' });
      return;
    }
    const fields = ['reference', 'to', 'text', 'receipt_url'] as const;
    const missing = fields.filter((field) => typeof payload?.[field] !== 'string' || payload[field] === '');
    if (missing.length > 0) {
      send(response, 400, { detail: `Missing or empty: ${missing.join(', ')}.`, code: 'invalid_request' });
      return;
    }
    const text = payload.text as string;
    if (text.includes('[provider-error]')) {
      send(response, 500, { detail: 'Simulated provider error.', code: 'provider_error' });
      return;
    }
    const message: SimulatedMessage = {
      provider_message_id: `sim-${randomUUID()}`,
      reference: payload.reference as string,
      to: payload.to as string,
      text,
      receipt_url: payload.receipt_url as string,
      received_at: new Date().toISOString(),
      outcome: outcomeOf(text, defaultOutcome),
      receipt: { state: 'pending' },
    };
    received.push(message);
    if (!options.quiet) log(formatLine('INFO', 'sms accepted', { component: 'sms-simulator', message_id: message.reference, to: message.to }));
    later(delayMs, () => void postReceipt(message));
    send(response, 202, { provider_message_id: message.provider_message_id, status: 'accepted' });
  };

  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!.replace(/\/+$/, '');
    const handle = async () => {
      if (path === '/messages' && request.method === 'POST') return submit(request, response);
      if (path === '/messages' && request.method === 'GET') return send(response, 200, { messages: received });
      if (path === '/messages') return send(response, 405, { detail: 'Use GET or POST.', code: 'method_not_allowed' });
      return send(response, 404, { detail: 'Not found.', code: 'not_found' });
    };
    handle().catch((error: unknown) => {
      logger.error('sms simulator failed', { component: 'sms-simulator', error: String(error) });
      if (!response.headersSent) send(response, 500, { detail: 'Simulator error.', code: 'internal_error' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    messages: () => received.map((message) => ({ ...message, receipt: { ...message.receipt } })),
    stop: async () => {
      cancelAll();
      for (const controller of inFlight) controller.abort();
      await closeServer(server);
    },
  };
};
