import { dynamodbEndpoint } from '../../support/dynamodb-lease';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { expect } from 'vitest';
import { eventually } from '../../support/eventually';
import { startStreamReader, type StreamReader } from '../../../local/stream-reader';
import type { SimItem } from '../../../shared/db/items';
import { parsePosition, simStatusList, timeBucketOf } from '../../../shared/sim-lists/layout';
import { readListDirectory, readListIds, type ListRequest } from '../../../shared/sim-lists/read-list';
import { maintainSimListsConsumer } from '../../../shared/routes/maintain-sim-lists';
import { lambdaContext } from '../../../local/lambda-context';
import { streamConsumers } from '../../../shared/topology/streams';

/** A customer of a test fleet: id, name and parent. */
export interface FleetCustomer {
  id: string;
  name: string;
  parent: string | null;
}

/** A three-level tree: group → a, b; a → a1, a2; b → b1 (ids prefixed so that two fleets share a table). */
export const treeOf = (prefix: string): FleetCustomer[] => [
  { id: `${prefix}`, name: `${prefix} Group`, parent: null },
  { id: `${prefix}-a`, name: `${prefix} A`, parent: prefix },
  { id: `${prefix}-b`, name: `${prefix} B`, parent: prefix },
  { id: `${prefix}-a1`, name: `${prefix} A1`, parent: `${prefix}-a` },
  { id: `${prefix}-a2`, name: `${prefix} A2`, parent: `${prefix}-a` },
  { id: `${prefix}-b1`, name: `${prefix} B1`, parent: `${prefix}-b` },
];

const statuses = ['active', 'active', 'active', 'suspended', 'inactive', 'trial', 'stock'] as const;

/** A SIM of a test fleet, in the seed document's vocabulary. */
export const fleetSim = (id: number, customer: string, updatedAtMs: number, status: string = statuses[id % statuses.length]!) => ({
  id,
  iccid: `89440${String(id).padStart(14, '0')}`,
  msisdn: `4477${String(id).padStart(9, '0')}`,
  status,
  connection_status: 'active',
  customer,
  tariff_name: 'IoT 1GB',
  data_used_mb: '1.00',
  data_overage_mb: '0.00',
  base_cost: '2.00',
  overage_cost: '0.00',
  data_bundle: null,
  updated_at: new Date(updatedAtMs).toISOString().replace('Z', '+00:00'),
});

/**
 * A seed document of a fleet: `count` SIMs with ids from `firstId`, spread over the tree's
 * customers (every one, leaves most), updated over the `days` days before `now`.
 */
export const fleetSeed = (tree: FleetCustomer[], count: number, options: { firstId: number; now: number; days?: number }) => {
  const owners = [tree[0]!.id, ...tree.slice(1).map((customer) => customer.id), ...tree.slice(3).map((customer) => customer.id)];
  const span = (options.days ?? 5) * 86_400_000;
  return {
    customers: tree.map((customer) => ({ ...customer, sms_enabled: true })),
    sims: Array.from({ length: count }, (_, index) =>
      fleetSim(options.firstId + index, owners[index % owners.length]!, options.now - span + Math.floor((index * 7919) % span)),
    ),
  };
};

/** Every SIM item of the table. */
export const allSims = async (db: DynamoDBDocumentClient, tableName: string): Promise<SimItem[]> => {
  const sims: SimItem[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({ TableName: tableName, FilterExpression: '#type = :sim', ExpressionAttributeNames: { '#type': 'type' }, ExpressionAttributeValues: { ':sim': 'sim' }, ExclusiveStartKey: startKey, ConsistentRead: true }),
    );
    sims.push(...((page.Items ?? []) as SimItem[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return sims;
};

/**
 * The brute-force answer to a list request from every SIM of the table: the matching SIMs in
 * the list's order (id order; with updated_after, the order of update the index keeps: day and
 * bucket of the time position, then update time and id), the requested page sorted by id as
 * A1 answers it.
 */
export const expectedList = (sims: readonly SimItem[], request: ListRequest): { count: number; ids: number[] } => {
  const matches = sims.filter(
    (sim) =>
      (request.direct ? sim.customer_id === request.customerId : sim.customer_path.includes(request.customerId)) &&
      (request.status === undefined || sim.status === request.status) &&
      (request.updatedAfter === undefined || sim.updated_at_ms > request.updatedAfter),
  );
  if (request.updatedAfter === undefined) matches.sort((left, right) => left.id - right.id);
  else {
    const rank = (sim: SimItem) => {
      const position = parsePosition(sim.list_pos?.[request.customerId])!;
      return `${position.day}#${String(timeBucketOf(position.sequence)).padStart(9, '0')}#${String(sim.updated_at_ms).padStart(15, '0')}#${String(sim.id).padStart(15, '0')}`;
    };
    matches.sort((left, right) => rank(left).localeCompare(rank(right)));
  }
  const start = (request.page - 1) * request.pageSize;
  const ids = matches.slice(start, start + request.pageSize).map((sim) => sim.id);
  if (request.updatedAfter !== undefined) ids.sort((left, right) => left - right);
  return { count: matches.length, ids };
};

/** The list requests that cover a fleet: every customer, scope and direct, each status and none, with and without updated_after. */
export const coveringRequests = (tree: FleetCustomer[], instants: number[], pageSize: number): Omit<ListRequest, 'page'>[] =>
  tree.flatMap((customer) =>
    [false, true].flatMap((direct) =>
      [undefined, ...simStatusList].flatMap((status) =>
        [undefined, ...instants].map((updatedAfter) => ({ groupId: tree[0]!.id, customerId: customer.id, direct, status, updatedAfter, pageSize })),
      ),
    ),
  );

/**
 * Differences between what the index answers and the brute-force answer, for every request:
 * count, and the ids of the first, a middle, the last and the beyond-the-end page. Empty when
 * they agree.
 */
export const listDifferences = async (
  table: { db: DynamoDBDocumentClient; tableName: string },
  requests: Omit<ListRequest, 'page'>[],
): Promise<string[]> => {
  const sims = await allSims(table.db, table.tableName);
  const differences: string[] = [];
  // A few requests at a time: the one DynamoDB Local serves every test file at once.
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const base = requests[next++]!;
      const total = expectedList(sims, { ...base, page: 1 }).count;
      const pages = Math.ceil(total / base.pageSize);
      const wanted = [...new Set([1, Math.max(1, Math.ceil(pages / 2)), Math.max(1, pages), pages + 1])];
      // One directory read for the request's pages (its count partitions are 9 Queries).
      const directory = await readListDirectory(table, { ...base, page: 1 });
      for (const page of wanted) {
        const request = { ...base, page };
        const expected = expectedList(sims, request);
        const answered = directory.kind === 'legacy' ? undefined : await readListIds(table, request, directory);
        if (JSON.stringify(answered) !== JSON.stringify(expected)) {
          differences.push(`${JSON.stringify(request)}: expected ${JSON.stringify(expected)}, answered ${JSON.stringify(answered)}`);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return differences;
};

/**
 * Waits until the index answers every request as the brute force does: first the unfiltered
 * list of each customer only (a few reads a pass, while the consumer catches up; on a loaded
 * machine full passes in a loop starved the consumer they waited for), then every request.
 */
export const expectListsExact = async (
  table: { db: DynamoDBDocumentClient; tableName: string },
  requests: Omit<ListRequest, 'page'>[],
  timeoutMs: number,
  intervalMs: number,
): Promise<void> => {
  const plain = requests.filter((request) => request.status === undefined && request.updatedAfter === undefined && !request.direct);
  await eventually(async () => expect(await listDifferences(table, plain)).toEqual([]), timeoutMs, intervalMs);
  await eventually(async () => expect(await listDifferences(table, requests)).toEqual([]), timeoutMs, intervalMs);
};

/** The table's stream read into the list index consumer, as the local runtime does. */
export const startListConsumer = async (table: { db: DynamoDBDocumentClient; tableName: string }, dynamo: import('@aws-sdk/client-dynamodb').DynamoDBClient): Promise<{ reader: StreamReader; streams: DynamoDBStreamsClient }> => {
  const streams = new DynamoDBStreamsClient({ endpoint: dynamodbEndpoint(), region: 'eu-west-2', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  // No record of a test fleet is set aside: one that is fails the count checks, and its line says why.
  const handle = maintainSimListsConsumer({ ...table, failures: { send: async (entry) => Promise.reject(new Error(`unexpected set-aside: ${entry.reason}`)) } });
  const definition = streamConsumers.find((consumer) => consumer.name === 'maintain-sim-lists')!;
  const reader = startStreamReader({
    dynamo,
    streams,
    tableName: table.tableName,
    consumers: [definition],
    idleMs: 50,
    quiet: true,
    handler: (event) => handle(event as DynamoDBStreamEvent, lambdaContext({ name: definition.name })),
  });
  // The reader starts at the latest record: give it a moment to find the shard first.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return { reader, streams };
};
