/**
 * `GET {base}/_local/admin` (issue #36, point 1): where this runtime keeps its data, so that the
 * admin CLI (`npm run admin`) run beside `npm start` finds the table, DynamoDB Local, the SQS
 * emulator and the queues by itself, as `npm run pay` finds the Stripe emulator. Read only;
 * nothing secret (local endpoints and fixed local credentials).
 */
import type { QueueName } from '../shared/topology/routes';
import type { LocalMount } from './gateway';
import type { QueueUrls } from './sqs-local';

/** The mount prefix. */
export const adminDiscoveryMount = '/_local/admin';

/** What the admin CLI reads from a running local runtime. */
export interface LocalAdminTargets {
  table: string;
  region: string;
  dynamodb_endpoint: string;
  sqs_endpoint: string;
  /** Each queue's URL, by queue name (operator-feed, fulfilment, webhook-deliveries, callbacks). */
  queues: Record<string, string>;
}

/** The mount: 200 with the runtime's targets on GET, 405 on any other method. */
export const adminDiscoveryHandler =
  (targets: () => { tableName: string; region: string; dynamodbEndpoint: string; sqsEndpoint: string; queues: Record<QueueName, QueueUrls> }): LocalMount =>
  async (request, response, path) => {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'Content-Type': 'application/json', ...headers });
      response.end(JSON.stringify(body));
    };
    if ((path.replace(/\/+$/, '') || '/') !== '/') return send(404, { detail: 'Not found: GET /_local/admin.', code: 'not_found' });
    if (request.method !== 'GET') return send(405, { detail: `Method ${request.method} is not allowed on this path.`, code: 'method_not_allowed' }, { Allow: 'GET' });
    const { tableName, region, dynamodbEndpoint, sqsEndpoint, queues } = targets();
    const body: LocalAdminTargets = {
      table: tableName,
      region,
      dynamodb_endpoint: dynamodbEndpoint,
      sqs_endpoint: sqsEndpoint,
      queues: Object.fromEntries(Object.entries(queues).map(([name, urls]) => [name, urls.url])),
    };
    send(200, body);
  };
