import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FunctionConfig } from '../config/function-config';
import { documentClient } from '../db/client';
import { configuredMailer } from '../adapters/email/configured-mailer';
import type { Mailer } from '../adapters/email/mailer';
import { configuredNotifier } from '../adapters/notifications/configured-notifier';
import type { OperationsNotifier } from '../adapters/notifications/operations-notifier';
import { smsProviderOf } from '../sms/configured-provider';
import type { SmsProvider } from '../adapters/sms-provider/provider';
import { queueDefinition } from '../topology/queues';

/**
 * Test hooks: a fault thrown from one of them stands for the worker dying at that point.
 * Never set in a deployed function.
 */
export interface FulfilmentFaults {
  /** After an effect was performed and recorded. */
  afterEffect?: (effect: string) => void | Promise<void>;
  /** After a message (e-mail, SMS, notification) was handed over, before it is recorded `done`. */
  afterSend?: (effect: string) => void | Promise<void>;
}

/** Everything fulfilment talks to, passed in so that tests can swap any adapter or the clock. */
export interface FulfilmentDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  now: () => Date;
  /** A fresh token (a UUID): lease owners and effect claims. */
  newToken: () => string;
  /** The e-mail adapter; undefined when e-mail is not configured. */
  mailer: () => Mailer | undefined;
  /** The SMS provider adapter; undefined when SMS is not configured. */
  smsProvider: () => Promise<SmsProvider | undefined>;
  /** The operations notifier; undefined when not configured. */
  notifier: () => OperationsNotifier | undefined;
  /**
   * How long a worker holds an order. Longer than the consumer's Lambda timeout, so that a
   * lease still held always belongs to a live worker, and one found expired to a dead one.
   */
  leaseMs: number;
  /** How long a worker waits for another worker's lease before giving the message back. */
  leaseWaitMs: number;
  /** Hold length of replacement stock (a payment that succeeds after its holds were released). */
  stockHoldMinutes: number;
  faults?: FulfilmentFaults;
}

/** Lease: the consumer's timeout plus 30 s. */
export const defaultLeaseMs = (queueDefinition('fulfilment').consumerTimeoutSeconds + 30) * 1000;

/**
 * The deps of the fulfilment consumer, built once per container from its configuration (read
 * at init by defineFunction, shared/config/define-function.ts): the e-mail and notification
 * adapters once; the SMS provider once with SMS_PROVIDER=aws, else per message, as the HTTP
 * provider's token is a secret (read through getSecret, which caches it).
 */
export const fulfilmentDeps = (config: FunctionConfig<'fulfil-order'>): FulfilmentDeps => {
  const mailer = configuredMailer(config);
  const notifier = configuredNotifier(config);
  // With SMS_PROVIDER=aws the AWS End User Messaging client is built here, once per container.
  const sms = smsProviderOf(config);
  return {
    db: documentClient(config),
    tableName: config.tableName,
    now: () => new Date(),
    newToken: () => randomUUID(),
    mailer: () => mailer,
    smsProvider: () => sms.provider(undefined),
    notifier: () => notifier,
    leaseMs: defaultLeaseMs,
    leaseWaitMs: 20_000,
    stockHoldMinutes: config.stockHoldMinutes,
  };
};
