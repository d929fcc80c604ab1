import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allRoutes, developerFallbackRoute, type RouteDefinition } from '../../shared/topology/routes';
import { demoSecrets } from '../../local/demo-config';
import { makeRouteEvent } from '../../local/event-fixtures';
import { resolveRoute } from '../../local/gateway';
import { repositoryRoot } from '../../local/handler-loader';
import { receiptSignature } from '../../local/sms-simulator';
import { queueDefinitions } from '../../shared/topology/queues';
import { schedules } from '../../shared/topology/schedules';
import { streamConsumers } from '../../shared/topology/streams';
import { topicConsumers } from '../../shared/topology/topics';
import { localTopicArn } from '../../local/topics';
import { passesFilter } from '../../local/stream-reader';

const fixture = (name: string): Record<string, any> => {
  const file = join(repositoryRoot, 'events', `${name}.json`);
  if (!existsSync(file)) {
    throw new Error(
      `events/${name}.json is missing: every route and queue consumer needs an event fixture. ` +
        `Create it with: npx tsx local/make-event.ts ${name} [--path ...] [--body ...] (see events/README.md)`,
    );
  }
  return JSON.parse(readFileSync(file, 'utf8'));
};

describe('event fixtures', () => {
  it.each(allRoutes().map((route) => [route.name, route] as const))(
    'events/%s.json is an API Gateway REST event that reaches its route',
    (name, route) => {
      const event = fixture(name);
      const resolved = resolveRoute(allRoutes(), event.httpMethod, event.path);
      expect(resolved?.route.name, `${event.httpMethod} ${event.path} must reach ${name}`).toBe(name);
      expect(event.resource).toBe(resolved!.match.resource);
      expect(event.requestContext?.resourcePath).toBe(event.resource);
      expect(event.pathParameters).toEqual(resolved!.match.pathParameters);
      expect(event.requestContext?.httpMethod).toBe(event.httpMethod);
      expect(typeof event.headers).toBe('object');
      expect(typeof event.multiValueHeaders).toBe('object');
      expect('queryStringParameters' in event && 'multiValueQueryStringParameters' in event).toBe(true);
      expect(event.body === null || typeof event.body === 'string').toBe(true);
      expect(typeof event.isBase64Encoded).toBe('boolean');
      if (route.json && ['POST', 'PUT', 'PATCH'].includes(event.httpMethod)) {
        expect(() => JSON.parse(event.body), `events/${name}.json needs a JSON body`).not.toThrow();
      }
    },
  );

  it.each(queueDefinitions.map((queue) => [queue.consumer.name] as const))(
    'events/%s.json is an SQS event of its queue',
    (name) => {
      const event = fixture(name);
      const queue = queueDefinitions.find((candidate) => candidate.consumer.name === name)!;
      expect(Array.isArray(event.Records) && event.Records.length > 0).toBe(true);
      for (const record of event.Records) {
        expect(record).toMatchObject({
          messageId: expect.any(String),
          receiptHandle: expect.any(String),
          body: expect.any(String),
          attributes: { ApproximateReceiveCount: expect.any(String) },
          messageAttributes: expect.any(Object),
          md5OfBody: expect.any(String),
          eventSource: 'aws:sqs',
          awsRegion: expect.any(String),
        });
        expect(record.eventSourceARN).toMatch(new RegExp(`:${queue.name}$`));
      }
    },
  );

  it.each(streamConsumers.map((consumer) => [consumer.name, consumer] as const))(
    'events/%s.json is a DynamoDB stream event its consumer is given',
    (name, consumer) => {
      const event = fixture(name);
      expect(Array.isArray(event.Records) && event.Records.length > 0).toBe(true);
      for (const record of event.Records) {
        expect(record).toMatchObject({
          eventID: expect.any(String),
          eventName: expect.stringMatching(/^(INSERT|MODIFY|REMOVE)$/),
          eventSource: 'aws:dynamodb',
          eventSourceARN: expect.stringMatching(/^arn:aws:dynamodb:[^:]+:\d{12}:table\/[^/]+\/stream\//),
          dynamodb: { ApproximateCreationDateTime: expect.any(Number), Keys: expect.any(Object), SequenceNumber: expect.any(String), StreamViewType: 'NEW_AND_OLD_IMAGES' },
        });
        expect(passesFilter(record, consumer), 'passes the item-type filter').toBe(true);
      }
    },
  );

  it.each(topicConsumers.map((topic) => [topic.consumer.name, topic] as const))(
    'events/%s.json is an SNS event of its topic with a JSON message',
    (name, topic) => {
      const event = fixture(name);
      expect(Array.isArray(event.Records) && event.Records.length === 1).toBe(true);
      for (const record of event.Records) {
        expect(record).toMatchObject({
          EventSource: 'aws:sns',
          EventVersion: '1.0',
          Sns: { Type: 'Notification', MessageId: expect.any(String), TopicArn: localTopicArn(topic.topic), Message: expect.any(String), Timestamp: expect.any(String) },
        });
        expect(() => JSON.parse(record.Sns.Message)).not.toThrow();
      }
    },
  );

  it.each(schedules.map((schedule) => [schedule.name] as const))('events/%s.json is the Scheduled Event of its EventBridge rule', (name) => {
    expect(fixture(name)).toMatchObject({ 'detail-type': 'Scheduled Event', source: 'aws.events', resources: [expect.stringMatching(new RegExp(`:rule/${name}$`))], detail: {} });
  });

  it('has no fixture for a route or consumer that does not exist', () => {
    const names = new Set([
      ...schedules.map((schedule) => schedule.name),
      ...allRoutes().map((route) => route.name),
      ...queueDefinitions.map((queue) => queue.consumer.name),
      ...streamConsumers.map((consumer) => consumer.name),
      ...topicConsumers.map((topic) => topic.consumer.name),
    ]);
    const files = existsSync(join(repositoryRoot, 'events'))
      ? readdirSync(join(repositoryRoot, 'events'))
      : [];
    const orphans = files.filter((file) => file.endsWith('.json') && !names.has(file.slice(0, -'.json'.length)));
    expect(orphans).toEqual([]);
  });
});

describe('make-event', () => {
  it('signs a provider receipt with the demo receipt secret', () => {
    const receipts: RouteDefinition = {
      name: 'receipts',
      method: 'POST',
      path: '/sms-provider/receipts',
      handler: 'functions/none.ts',
      area: 'provider',
      json: false,
      access: { table: 'none' },
    };
    const body = '{"reference":"r"}';
    const event = makeRouteEvent(receipts, { body });
    expect(event.headers['X-Provider-Signature']).toBe(receiptSignature(body, demoSecrets.SMS_RECEIPT_SECRET));
  });

  it('gives Area A requests both credentials and a sample SIM path', () => {
    const event = makeRouteEvent(developerFallbackRoute, { credentials: { bearerToken: 'bearer_a_b', apiKey: 'devkey_a_b' } });
    expect(event).toMatchObject({
      path: '/developer/api/no-such-path',
      pathParameters: { proxy: 'no-such-path' },
      headers: { Authorization: 'Bearer bearer_a_b', 'X-Customer-API-Key': 'devkey_a_b' },
      body: null,
    });
  });
});
