import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readCheckoutConfig } from '../config/checkout-env';
import { readConfig } from '../config/env';
import { documentClient } from '../db/client';
import { configuredMailer } from '../adapters/email/configured-mailer';
import type { Mailer } from '../adapters/email/mailer';
import { configuredNotifier } from '../adapters/notifications/configured-notifier';
import type { OperationsNotifier } from '../adapters/notifications/operations-notifier';
import { readSmsConfig } from '../sms/config';
import { configuredSmsProvider } from '../sms/configured-provider';
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

/** The deps of a deployed or local consumer, from its environment (read per call where it is cheap). */
export const fulfilmentDepsFromEnvironment = (env: NodeJS.ProcessEnv = process.env): FulfilmentDeps => {
  const config = readConfig(env);
  return {
    db: documentClient(config),
    tableName: config.tableName,
    now: () => new Date(),
    newToken: () => randomUUID(),
    mailer: () => configuredMailer(env),
    smsProvider: () => configuredSmsProvider(readSmsConfig(env), undefined),
    notifier: () => configuredNotifier(env),
    leaseMs: defaultLeaseMs,
    leaseWaitMs: 20_000,
    stockHoldMinutes: readCheckoutConfig(env).stockHoldMinutes,
  };
};

let containerDeps: FulfilmentDeps | undefined;

/** The deps of this container, built on first use and reused by every invocation. */
export const containerFulfilmentDeps = (): FulfilmentDeps => (containerDeps ??= fulfilmentDepsFromEnvironment());
