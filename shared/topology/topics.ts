/**
 * The SNS topics whose messages the service consumes, as plain data beside the route, queue
 * and stream tables: read by the CDK stack (a topic encrypted with its own KMS key, the
 * publishing service's permission, and a subscribed consumer function with its dead-letter
 * queue and alarms: infra/constructs/topic-consumer.ts) and by the local runtime
 * (local/topics.ts, which hands messages to the same handlers as SNS events).
 */
import type { RouteAccess } from './routes';

/** Names of the topics. */
export type TopicName = 'sms-events' | 'sms-inbound';

/**
 * Which deployment a topic belongs to: `awsSms`, the stack sends SMS through AWS End User
 * Messaging (`-c smsProvider=aws`); `smsTwoWay`, it also receives SMS (`-c smsTwoWay=true`).
 * The local runtime always has every topic.
 */
export type TopicFeature = 'awsSms' | 'smsTwoWay';

/** One topic and the function subscribed to it. */
export interface TopicConsumerDefinition {
  topic: TopicName;
  /** What the topic carries, for its display name. */
  description: string;
  feature: TopicFeature;
  /** The AWS service principal that publishes to the topic (only it, of this account, may). */
  publisher: 'sms-voice.amazonaws.com';
  /**
   * Which of the publisher's resources may publish (the topic policy's `aws:SourceArn`, beside
   * `aws:SourceAccount`: infra/constructs/topic-consumer.ts): `configurationSet`, the stack's
   * own configuration set (its event destination); `twoWayChannel`, End User Messaging SMS
   * resources of this account and Region (the two-way channel of an origination number).
   */
  publishedBy: 'configurationSet' | 'twoWayChannel';
  /** The consumer: function name and handler module (exports `handler`). */
  consumer: { name: string; handler: string };
  timeoutSeconds: number;
  /** Lambda's retries of a failed asynchronous invocation (0 to 2) before the dead-letter queue. */
  retryAttempts: number;
  /** What the consumer may touch. */
  access: RouteAccess;
}

/** The topics of the service. */
export const topicConsumers: TopicConsumerDefinition[] = [
  {
    // Delivery events of AWS End User Messaging SMS (issue #21; docs/sms.md): the configuration
    // set's SNS event destination publishes them; final ones forward the receipt (A4).
    topic: 'sms-events',
    description: 'SMS delivery events (AWS End User Messaging configuration set)',
    feature: 'awsSms',
    publisher: 'sms-voice.amazonaws.com',
    publishedBy: 'configurationSet',
    consumer: { name: 'record-sms-events', handler: 'functions/record-sms-events.ts' },
    timeoutSeconds: 30,
    retryAttempts: 2,
    access: { table: 'readWrite', sendsTo: ['callbacks'] },
  },
  {
    // Inbound (two-way) SMS (issue #21): the origination number's two-way channel publishes
    // them; each is stored, and its INSERT makes the sms.received lifecycle event (stream).
    topic: 'sms-inbound',
    description: 'Inbound SMS (two-way channel of the origination number)',
    feature: 'smsTwoWay',
    publisher: 'sms-voice.amazonaws.com',
    publishedBy: 'twoWayChannel',
    consumer: { name: 'receive-inbound-sms', handler: 'functions/receive-inbound-sms.ts' },
    timeoutSeconds: 30,
    retryAttempts: 2,
    access: { table: 'readWrite' },
  },
];
