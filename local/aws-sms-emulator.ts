/**
 * The embedded AWS End User Messaging SMS emulator of the local runtime (LOCAL-CONTRACT.md, "SMS
 * through AWS End User Messaging"), mounted by the gateway under `{base}/_local/aws-sms/` (tests
 * may serve it at the root of a port of its own: serveAwsSmsEmulator):
 *
 * - `POST /` speaks the PinpointSMSVoiceV2 JSON protocol as the SDK sends it (`X-Amz-Target:
 *   PinpointSMSVoiceV2.SendTextMessage`, `Content-Type: application/x-amz-json-1.0`, a SigV4
 *   `Authorization` for `sms-voice`): it checks each request, records it, answers `{MessageId}`
 *   or the API's error shape, and, after the delay, publishes the message's delivery events to
 *   the `sms-events` topic: a non-final TEXT_SUCCESSFUL, then the final event of the outcome
 *   (`delivered` TEXT_DELIVERED, `expired` TEXT_TTL_EXPIRED, `failed` TEXT_CARRIER_UNREACHABLE);
 * - `POST /events` and `POST /inbound` hand one event or inbound message (a JSON object, as the
 *   configuration set's event destination or the number's two-way channel publishes it) to the
 *   `sms-events` / `sms-inbound` topic, so to the same consumers the deployed subscriptions invoke;
 * - `GET /messages` lists the messages it accepted, oldest first.
 *
 * The outcome is SMS_SIMULATOR_OUTCOME, or `[expired]` / `[failed]` in the text, as the HTTP
 * simulator's. Markers for tests: `[provider-error]` is refused as a ValidationException, and
 * `[aws-error:<ExceptionName>]` or `[aws-error:<ExceptionName>:<REASON>]` with that error.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { formatLine, logger, logOutput } from '../shared/observability/logger';
import type { TopicName } from '../shared/topology/topics';
import type { LocalMount } from './gateway';
import { MalformedInboundSms, parseInboundSms } from '../shared/sms/inbound';
import { outcomeOf, type SmsOutcome } from './sms-simulator';
import { readBoundedBody } from './request-body';
import { pendingTimers } from './pending-timers';

/** The mount prefix of the emulator (the gateway picks the longest matching prefix). */
export const awsSmsMount = '/_local/aws-sms';

/** The X-Amz-Target of SendTextMessage. */
export const sendTextMessageTarget = 'PinpointSMSVoiceV2.SendTextMessage';

/** Demo origination identity and configuration set the local runtime gives the handlers (not secret). */
export const demoAwsSms = { originationIdentity: 'phone-0123456789abcdef0123456789abcdef', configurationSet: 'sim-service-local' } as const;

/** The final event of each outcome: type and messageStatus. */
export const finalEvents: Record<SmsOutcome, { eventType: string; messageStatus: string; description: string }> = {
  delivered: { eventType: 'TEXT_DELIVERED', messageStatus: 'DELIVERED', description: 'Message has been delivered to the handset' },
  expired: { eventType: 'TEXT_TTL_EXPIRED', messageStatus: 'TTL_EXPIRED', description: 'Message could not be delivered before its time to live' },
  failed: { eventType: 'TEXT_CARRIER_UNREACHABLE', messageStatus: 'CARRIER_UNREACHABLE', description: "The recipient's carrier could not be reached" },
};

/** One API request as the emulator received it (tests check each as the SDK sent it). */
export interface RecordedAwsSmsRequest {
  target: string | undefined;
  contentType: string | undefined;
  authorization: string | undefined;
  /** The JSON body as sent (undefined when it was not JSON). */
  body: Record<string, unknown> | undefined;
  /** What the emulator answered: the HTTP status and the error's `__type`, if any. */
  status: number;
  errorType?: string;
}

/** One message the emulator accepted, with what became of its events. */
export interface EmulatedSms {
  message_id: string;
  destination: string;
  origination_identity: string;
  configuration_set: string;
  body: string;
  message_type: string | null;
  context: Record<string, string>;
  accepted_at: string;
  outcome: SmsOutcome;
  /** pending until the final event was published, then its type. */
  events: { state: 'pending' | 'published'; final_event_type: string };
}

/** Options of the emulator. */
export interface AwsSmsEmulatorOptions {
  /** Publishes a message to a local topic (local/topics.ts); returns the SNS message id. */
  publish: (topic: TopicName, message: string) => string;
  /** Delay before the final event (SMS_SIMULATOR_DELAY_MS, default 200). */
  delayMs?: number;
  /** Outcome when the text has no marker (SMS_SIMULATOR_OUTCOME, default delivered). */
  outcome?: SmsOutcome;
  /** The origination identity and configuration set that exist (others are ResourceNotFoundException); default demoAwsSms. */
  originationIdentity?: string;
  configurationSet?: string;
  quiet?: boolean;
  log?: (line: string) => void;
}

/** A running emulator: its request handler and what it received. */
export interface AwsSmsEmulator {
  /** Answers one request; `path` is below the mount (`/`, `/events`, `/inbound`, `/messages`). */
  handle: LocalMount;
  /** Every API request received, oldest first. */
  requests: RecordedAwsSmsRequest[];
  /** The messages accepted so far, oldest first. */
  messages(): EmulatedSms[];
  /** Stops: events not yet published are dropped. */
  stop(): void;
}

/** An error answer of the API. */
class ApiFault extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

const maxBodyBytes = 256 * 1024;

/** The body, cut after maxBodyBytes (the emulator reads no more of a larger one). */
const readBody = async (request: IncomingMessage): Promise<string> => (await readBoundedBody(request, maxBodyBytes)).text;

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  response.end(text);
};

/** Errors a `[aws-error:...]` marker may ask for, with their HTTP status. */
const markerStatuses: Record<string, number> = {
  AccessDeniedException: 400,
  ConflictException: 400,
  InternalServerException: 500,
  ResourceNotFoundException: 400,
  ServiceQuotaExceededException: 400,
  ThrottlingException: 400,
  ValidationException: 400,
};

const text = (value: unknown): value is string => typeof value === 'string' && value !== '';

/** Creates an emulator (no server: mount `handle`, or serve it with serveAwsSmsEmulator). */
export const createAwsSmsEmulator = (options: AwsSmsEmulatorOptions): AwsSmsEmulator => {
  const delayMs = options.delayMs ?? 200;
  const defaultOutcome = options.outcome ?? 'delivered';
  const originationIdentity = options.originationIdentity ?? demoAwsSms.originationIdentity;
  const configurationSet = options.configurationSet ?? demoAwsSms.configurationSet;
  const log = options.log ?? ((line: string) => logOutput.write(line, 'INFO'));
  const requests: RecordedAwsSmsRequest[] = [];
  const accepted: EmulatedSms[] = [];
  const { later, cancelAll } = pendingTimers();


  const eventOf = (sms: EmulatedSms, type: { eventType: string; messageStatus: string; description: string }, isFinal: boolean, requestedAt: number) => ({
    eventType: type.eventType,
    eventVersion: '1.0',
    eventTimestamp: Date.now(),
    isFinal,
    originationPhoneNumber: '+447700900000',
    destinationPhoneNumber: sms.destination,
    isoCountryCode: 'GB',
    isInternationalSend: false,
    mcc: '234',
    mnc: '15',
    messageId: sms.message_id,
    messageRequestTimestamp: requestedAt,
    messageEncoding: 'GSM',
    messageType: sms.message_type ?? 'TRANSACTIONAL',
    messageStatus: type.messageStatus,
    messageStatusDescription: type.description,
    context: sms.context,
    totalMessageParts: 1,
    totalMessagePrice: 0.0405,
    totalCarrierFee: 0.0,
  });

  const sendTextMessage = (body: Record<string, unknown>): { MessageId: string } => {
    const destination = body.DestinationPhoneNumber;
    if (!text(destination) || !/^\+[1-9]\d{4,14}$/.test(destination)) {
      throw new ApiFault(400, 'ValidationException', 'DestinationPhoneNumber must be an E.164 phone number', { Reason: 'INVALID_PARAMETER', Fields: [{ Name: 'DestinationPhoneNumber', Message: 'invalid' }] });
    }
    if (!text(body.MessageBody)) throw new ApiFault(400, 'ValidationException', 'MessageBody is required', { Reason: 'INVALID_PARAMETER' });
    if (body.OriginationIdentity !== undefined && body.OriginationIdentity !== originationIdentity) {
      throw new ApiFault(400, 'ResourceNotFoundException', `origination identity ${String(body.OriginationIdentity)} not found`, { ResourceType: 'phone-number', ResourceId: String(body.OriginationIdentity) });
    }
    if (body.ConfigurationSetName !== undefined && body.ConfigurationSetName !== configurationSet) {
      throw new ApiFault(400, 'ResourceNotFoundException', `configuration set ${String(body.ConfigurationSetName)} not found`, { ResourceType: 'configuration-set', ResourceId: String(body.ConfigurationSetName) });
    }
    if (body.MessageType !== undefined && body.MessageType !== 'TRANSACTIONAL' && body.MessageType !== 'PROMOTIONAL') {
      throw new ApiFault(400, 'ValidationException', 'MessageType must be TRANSACTIONAL or PROMOTIONAL', { Reason: 'INVALID_PARAMETER' });
    }
    let context: Record<string, string> = {};
    if (body.Context !== undefined) {
      if (typeof body.Context !== 'object' || body.Context === null || Array.isArray(body.Context)) {
        throw new ApiFault(400, 'ValidationException', 'Context must be a map of strings', { Reason: 'INVALID_PARAMETER' });
      }
      const entries = Object.entries(body.Context as Record<string, unknown>);
      if (entries.some(([, value]) => typeof value !== 'string')) throw new ApiFault(400, 'ValidationException', 'Context values must be strings', { Reason: 'INVALID_PARAMETER' });
      // Defined, not assigned: a key named __proto__ stays a key of the context.
      context = Object.fromEntries(entries) as Record<string, string>;
    }
    const message = body.MessageBody as string;
    if (message.includes('[provider-error]')) throw new ApiFault(400, 'ValidationException', 'Simulated refusal ([provider-error])');
    const marker = /\[aws-error:([A-Za-z]+)(?::([A-Z0-9_]+))?\]/.exec(message);
    // Own entries only: `[aws-error:constructor]` names no error.
    if (marker && Object.hasOwn(markerStatuses, marker[1]!)) {
      throw new ApiFault(markerStatuses[marker[1]!]!, marker[1]!, `Simulated ${marker[1]}`, marker[2] ? { Reason: marker[2] } : {});
    }
    const requestedAt = Date.now();
    const sms: EmulatedSms = {
      message_id: randomUUID(),
      destination,
      origination_identity: String(body.OriginationIdentity ?? originationIdentity),
      configuration_set: String(body.ConfigurationSetName ?? ''),
      body: message,
      message_type: typeof body.MessageType === 'string' ? body.MessageType : null,
      context,
      accepted_at: new Date(requestedAt).toISOString(),
      outcome: outcomeOf(message, defaultOutcome),
      events: { state: 'pending', final_event_type: '' },
    };
    sms.events.final_event_type = finalEvents[sms.outcome].eventType;
    accepted.push(sms);
    if (!options.quiet) log(formatLine('INFO', 'aws sms accepted', { component: 'aws-sms-emulator', provider_message_id: sms.message_id, message_id: context.message_id ?? null }));
    // Events only with a configuration set (its event destination publishes them).
    if (sms.configuration_set) {
      later(Math.floor(delayMs / 2), () => {
        options.publish('sms-events', JSON.stringify(eventOf(sms, { eventType: 'TEXT_SUCCESSFUL', messageStatus: 'SUCCESSFUL', description: 'Message has been accepted by phone carrier' }, false, requestedAt)));
      });
      later(delayMs, () => {
        options.publish('sms-events', JSON.stringify(eventOf(sms, finalEvents[sms.outcome], true, requestedAt)));
        sms.events.state = 'published';
      });
    }
    return { MessageId: sms.message_id };
  };

  const api = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const raw = await readBody(request);
    const target = request.headers['x-amz-target'] as string | undefined;
    const contentType = request.headers['content-type'];
    const authorization = request.headers.authorization;
    let body: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(raw === '' ? '{}' : raw);
      body = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      body = undefined;
    }
    const recorded: RecordedAwsSmsRequest = { target, contentType, authorization, body, status: 0 };
    requests.push(recorded);
    const requestId = randomUUID();
    const headers = { 'Content-Type': 'application/x-amz-json-1.0', 'x-amzn-RequestId': requestId };
    try {
      if (!authorization || !/^AWS4-HMAC-SHA256 Credential=[^/]+\/\d{8}\/[a-z0-9-]+\/sms-voice\/aws4_request, SignedHeaders=[^,]+, Signature=[0-9a-f]{64}$/.test(authorization)) {
        throw new ApiFault(403, 'MissingAuthenticationTokenException', 'Missing or malformed SigV4 Authorization for sms-voice');
      }
      if (contentType !== 'application/x-amz-json-1.0') throw new ApiFault(400, 'SerializationException', `Content-Type must be application/x-amz-json-1.0, not ${String(contentType)}`);
      if (!body) throw new ApiFault(400, 'SerializationException', 'The body is not a JSON object');
      if (target !== sendTextMessageTarget) throw new ApiFault(400, 'UnknownOperationException', `The emulator answers ${sendTextMessageTarget} only, not ${String(target)}`);
      const answer = sendTextMessage(body);
      recorded.status = 200;
      json(response, 200, answer, headers);
    } catch (error) {
      if (!(error instanceof ApiFault)) throw error;
      recorded.status = error.status;
      recorded.errorType = error.type;
      json(response, error.status, { __type: error.type, Message: error.message, ...error.extra }, { ...headers, 'x-amzn-ErrorType': error.type });
    }
  };

  const publishBody = async (request: IncomingMessage, response: ServerResponse, topic: TopicName): Promise<void> => {
    const raw = await readBody(request);
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return json(response, 400, { detail: 'The body is not valid JSON.', code: 'invalid_json' });
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return json(response, 400, { detail: 'The body must be one JSON object.', code: 'invalid_request' });
    }
    // An inbound SMS the consumer would drop (shared/sms/inbound.ts) is refused here, naming the field, rather than taken and lost.
    if (topic === 'sms-inbound') {
      try {
        parseInboundSms(raw);
      } catch (error) {
        if (!(error instanceof MalformedInboundSms)) throw error;
        return json(response, 400, { detail: `${error.message}; the consumer drops an inbound SMS without it.`, code: 'invalid_request', field: error.field });
      }
    }
    const snsMessageId = options.publish(topic, raw);
    json(response, 202, { topic, sns_message_id: snsMessageId });
  };

  const handle: LocalMount = async (request, response, path) => {
    const method = request.method ?? 'GET';
    const route = path.replace(/\/+$/, '') || '/';
    try {
      if (route === '/' && method === 'POST') return await api(request, response);
      if (route === '/events' && method === 'POST') return await publishBody(request, response, 'sms-events');
      if (route === '/inbound' && method === 'POST') return await publishBody(request, response, 'sms-inbound');
      if (route === '/messages' && method === 'GET') return json(response, 200, { messages: accepted });
      if (['/', '/events', '/inbound', '/messages'].includes(route)) {
        return json(response, 405, { detail: `Method ${method} is not allowed on this path.`, code: 'method_not_allowed' }, { Allow: route === '/messages' ? 'GET' : 'POST' });
      }
      json(response, 404, { detail: 'Not found: POST / (the API), POST /events, POST /inbound, GET /messages.', code: 'not_found' });
    } catch (error) {
      logger.error('aws sms emulator failed', { component: 'aws-sms-emulator', error: String(error) });
      if (!response.headersSent) json(response, 500, { __type: 'InternalServerException', Message: 'Emulator error' });
      else response.end();
    }
  };

  return {
    handle,
    requests,
    messages: () => accepted.map((sms) => ({ ...sms, context: { ...sms.context }, events: { ...sms.events } })),
    stop: () => {
      cancelAll();
    },
  };
};

/** An emulator served at the root of a port of its own (tests). */
export interface ServedAwsSmsEmulator {
  /** e.g. `http://127.0.0.1:40123`: an AWS_SMS_ENDPOINT. */
  url: string;
  stop(): Promise<void>;
}

/** Serves an emulator's handler at the root of a free port on 127.0.0.1. */
export const serveAwsSmsEmulator = async (emulator: AwsSmsEmulator): Promise<ServedAwsSmsEmulator> => {
  const server: Server = createServer((request, response) => {
    const url = request.url ?? '/';
    const at = url.indexOf('?');
    void emulator.handle(request, response, at === -1 ? url : url.slice(0, at), at === -1 ? '' : url.slice(at + 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        emulator.stop();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
