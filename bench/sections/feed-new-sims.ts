/**
 * Section 7, new SIMs (issue #31, point 7): a fleet arriving through the operator feed. N `sim`
 * records of new SIMs (ids ascending, each with its MSISDN, owned by four customers of one
 * group) through the feed's consumer (apply-operator-feed's handler, invoked with SQS events of
 * five messages of whole lines, as the event source mapping would), then the same conditional
 * writes the consumer makes for a new SIM sent directly to DynamoDB Local, for as many other
 * SIMs, as many at once as the consumer writes (48): its ICCID item (PutItem, condition), the
 * claim of its number (UpdateItem, condition) and the SIM with the claim's check (TransactWriteItems).
 * Reported: SIMs per second both ways and their ratio (target ≥ 0.6), requests and write units
 * per SIM. The table has no stream: the list index's cost is section 5's.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createTable } from '../../local/create-table';
import { loadSeedDocument } from '../../local/seed/load';
import { gsi1, key } from '../../shared/db/keys';
import { feedMessageDrafts } from '../../shared/feed/messages';
import { claimCheck } from '../../shared/msisdn/msisdn-index';
import { applyOperatorFeedConsumer } from '../../shared/routes/apply-operator-feed';
import { simIccidItem } from '../../shared/sims/sim-writes';
import { dayOf, formatPosition } from '../../shared/sim-lists/layout';
import type { SectionContext } from '../lib/context';
import { countRequests } from '../lib/count-requests';
import { applyThroughConsumer } from '../lib/feed-consumer';
import { round } from '../lib/stats';

/** What the new-SIM case measured. */
export interface FeedNewSimsResult {
  sims: number;
  messages: number;
  consumer: { seconds: number; simsPerSecond: number; requestsPerSim: Record<string, number>; writeUnitsPerSim: number };
  direct: { seconds: number; simsPerSecond: number };
  ratio: number;
}

const group = 'newsims';
const owners = ['newsims-a', 'newsims-b', 'newsims-c', 'newsims-d'];
const iccidOf = (id: number) => `8998${String(id).padStart(14, '0')}`;
const msisdnOf = (id: number) => `4478${String(id).padStart(9, '0')}`;

/** The consumer's client, counting requests and write units by command. */
const countedClient = (endpoint: string, region: string) => {
  const client = new DynamoDBClient({ endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const db = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return { client, db, ...countRequests(db, 'benchNewSimsCounter') };
};

/** The `sim` records of `count` new SIMs from `firstId`, numbered from 1. */
function* newSimLines(count: number, firstId: number, sourceTime: string): Generator<{ line: number; text: string }> {
  for (let index = 0; index < count; index += 1) {
    const id = firstId + index;
    yield {
      line: index + 1,
      text: JSON.stringify({ type: 'sim', source_time: sourceTime, id, iccid: iccidOf(id), msisdn: msisdnOf(id), customer: owners[index % owners.length], status: 'active', connection_status: 'active', tariff_name: 'IoT 1GB', base_cost: '5.00' }),
    };
  }
}

/** Runs the new-SIM case of the feed section over `sims` new SIMs. */
export const runFeedNewSims = async (context: SectionContext, options: { dynamodbEndpoint: string; region: string; sims: number }): Promise<FeedNewSimsResult> => {
  const setup = new DynamoDBClient({ endpoint: options.dynamodbEndpoint, region: options.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const tableName = `bench-newsims-${Date.now()}`;
  try {
    await createTable(setup, tableName, { stream: false });
    await loadSeedDocument(
      { customers: [{ id: group, name: 'New SIMs', parent: null, sms_enabled: true }, ...owners.map((id) => ({ id, name: id, parent: group, sms_enabled: true }))] },
      { client: setup, tableName },
    );
    const consumer = countedClient(options.dynamodbEndpoint, options.region);
    const handler = applyOperatorFeedConsumer({ db: consumer.db, tableName, now: Date.now });
    const sourceTime = new Date(Date.now() - 60_000).toISOString();
    context.log(`feed: ${options.sims.toLocaleString('en-GB')} new SIMs through the consumer`);
    const started = performance.now();
    const { messages } = await applyThroughConsumer(handler, feedMessageDrafts(newSimLines(options.sims, 1, sourceTime), () => {}), 'newsims');
    const consumerSeconds = (performance.now() - started) / 1000;
    const requestsPerSim = Object.fromEntries(Object.entries(consumer.requests).map(([command, count]) => [command, round(count / options.sims, 3)]));
    consumer.client.destroy();

    // The same conditional writes per SIM, sent directly for as many other SIMs, 48 at once.
    const direct = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: options.dynamodbEndpoint, region: options.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }), {
      marshallOptions: { removeUndefinedValues: true },
    });
    const sourceMs = Date.parse(sourceTime);
    const firstDirect = options.sims + 1_000_000;
    let next = 0;
    const directStarted = performance.now();
    await Promise.all(
      Array.from({ length: 48 }, async () => {
        while (next < options.sims) {
          const index = next++;
          const id = firstDirect + index;
          const owner = owners[index % owners.length]!;
          const sim = { id, iccid: iccidOf(id), customer_id: owner, customer_path: [group, owner] };
          await direct.send(new PutCommand({ TableName: tableName, Item: simIccidItem(sim), ConditionExpression: 'attribute_not_exists(PK) OR sim_id = :id', ExpressionAttributeValues: { ':id': id }, ReturnValues: 'ALL_OLD' }));
          await direct.send(
            new UpdateCommand({
              TableName: tableName,
              Key: key.msisdn(msisdnOf(id)),
              UpdateExpression: 'SET #type = :type, msisdn = :msisdn, sim_id = :sim, iccid = :iccid, claim_ms = :time, released = :released',
              ConditionExpression: 'attribute_not_exists(PK) OR attribute_not_exists(claim_ms) OR claim_ms < :time OR (claim_ms = :time AND sim_id <= :sim)',
              ExpressionAttributeNames: { '#type': 'type' },
              ExpressionAttributeValues: { ':type': 'msisdn_claim', ':msisdn': msisdnOf(id), ':sim': id, ':iccid': sim.iccid, ':time': sourceMs, ':released': false },
              ReturnValues: 'ALL_OLD',
            }),
          );
          const at = Date.now();
          const position = formatPosition(dayOf(at), index);
          const item = {
            ...key.sim(id), ...gsi1.simByIccid(sim.iccid), type: 'sim', ...sim, msisdn: msisdnOf(id), status: 'active', connection_status: 'active', customer_name: owner,
            tariff_name: 'IoT 1GB', data_used_mb: '0.00', data_overage_mb: '0.00', base_cost: '5.00', overage_cost: '0.00', data_bundle: null, updated_at: new Date(at).toISOString(), updated_at_ms: at,
            listed_at_ms: at, list_pos: { [group]: position, [owner]: position }, src_status: sourceMs, src_connection_status: sourceMs, src_msisdn: sourceMs, src_customer: sourceMs, src_tariff_name: sourceMs, src_base_cost: sourceMs,
          };
          await direct.send(new TransactWriteCommand({ TransactItems: [claimCheck(tableName, msisdnOf(id), id, sourceMs), { Put: { TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' } }] }));
        }
      }),
    );
    const directSeconds = (performance.now() - directStarted) / 1000;
    direct.destroy();

    const result: FeedNewSimsResult = {
      sims: options.sims,
      messages,
      consumer: { seconds: round(consumerSeconds, 1), simsPerSecond: round(options.sims / consumerSeconds, 0), requestsPerSim, writeUnitsPerSim: round(consumer.units.write / options.sims, 2) },
      direct: { seconds: round(directSeconds, 1), simsPerSecond: round(options.sims / directSeconds, 0) },
      ratio: round(directSeconds / consumerSeconds, 2),
    };
    context.targets.check({
      section: '7 feed',
      id: 'feed-new-sims-vs-direct',
      subject: `${options.sims.toLocaleString('en-GB')} new SIMs (with MSISDNs) through the feed`,
      target: '≥ 0.6 × the same conditional writes sent directly',
      actual: `${result.ratio} × (${result.consumer.simsPerSecond} SIMs/s; direct ${result.direct.simsPerSecond} SIMs/s)`,
      met: result.ratio >= 0.6,
      evidence: `consumer requests per SIM: ${JSON.stringify(requestsPerSim)}`,
    });
    return result;
  } finally {
    setup.destroy();
  }
};
