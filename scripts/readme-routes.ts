/**
 * Renders the README's route table from shared/topology/routes.ts, the queue definitions, the
 * stream consumers, the topic consumers and the schedules, so the
 * README never disagrees with what the stack deploys. `npm run docs` rewrites the block
 * between the markers; test/platform/readme.test.ts fails when it is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { allRoutes } from '../shared/topology/routes';
import { queueDefinitions } from '../shared/topology/queues';
import { streamConsumers } from '../shared/topology/streams';
import { schedules } from '../shared/topology/schedules';
import { topicConsumers } from '../shared/topology/topics';

/** The markers around the generated block in README.md. */
export const markers = { start: '<!-- routes:start (npm run docs) -->', end: '<!-- routes:end -->' } as const;

const access = (table: string, sendsTo?: string[], secrets?: string[]): string =>
  [`table: ${table}`, ...(sendsTo?.length ? [`sends: ${sendsTo.join(', ')}`] : []), ...(secrets?.length ? [`secrets: ${secrets.join(', ')}`] : [])].join('; ');

/** The Markdown block (markers included) describing every route and queue consumer. */
export const renderRouteTable = (): string => {
  const rows = allRoutes().map(
    (route) =>
      `| ${route.method} | \`${route.path}\` | \`${route.handler}\` | ${route.area} | ${route.json ? 'yes' : 'no'} | ${access(route.access.table, route.access.sendsTo, route.access.secrets)} |`,
  );
  const consumers = queueDefinitions.map(
    (queue) =>
      `| SQS | \`${queue.name}\` queue (DLQ after ${queue.maxReceiveCount} receives) | \`${queue.consumer.handler}\` | consumer | no | ${access(queue.access.table, queue.access.sendsTo, queue.access.secrets)} |`,
  );
  const streams = streamConsumers.map(
    (consumer) =>
      `| STREAM | the table's stream (\`type\` ${consumer.itemTypes.join(', ')}; a record it cannot process is set aside on its failure queue at once, an outage retried ${consumer.retryAttempts} times, then the failure queue) | \`${consumer.handler}\` | consumer | no | ${access(consumer.access.table, consumer.access.sendsTo, consumer.access.secrets)} |`,
  );
  const features = { awsSms: '`-c smsProvider=aws`', smsTwoWay: '`-c smsTwoWay=true`' };
  const topics = topicConsumers.map(
    (topic) =>
      `| SNS | \`${topic.topic}\` topic (deployed with ${features[topic.feature]}; ${topic.retryAttempts} retries, then a DLQ) | \`${topic.consumer.handler}\` | consumer | no | ${access(topic.access.table, topic.access.sendsTo, topic.access.secrets)} |`,
  );
  const scheduled = schedules.map(
    (schedule) =>
      `| SCHEDULE | every ${schedule.everyMinutes} minutes (EventBridge; locally every minute) | \`${schedule.handler}\` | scheduled | no | ${access(schedule.access.table, schedule.access.sendsTo, schedule.access.secrets)} |`,
  );
  return [
    markers.start,
    '| Method | Path | Handler | Area | JSON body | Access (least privilege) |',
    '|---|---|---|---|---|---|',
    ...rows,
    ...consumers,
    ...streams,
    ...topics,
    ...scheduled,
    markers.end,
  ].join('\n');
};

/** README.md with its generated block replaced by the current one. */
export const withCurrentRouteTable = (readme: string): string => {
  const start = readme.indexOf(markers.start);
  const end = readme.indexOf(markers.end);
  if (start < 0 || end < start) throw new Error('README.md lacks the route table markers');
  return readme.slice(0, start) + renderRouteTable() + readme.slice(end + markers.end.length);
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = fileURLToPath(new URL('../README.md', import.meta.url));
  const current = readFileSync(path, 'utf8');
  const updated = withCurrentRouteTable(current);
  if (updated === current) {
    console.log('README.md route table already current: nothing changed');
  } else {
    writeFileSync(path, updated);
    console.log('README.md route table updated');
  }
}
