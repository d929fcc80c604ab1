/**
 * The scale section's fleet (issue #19, point 6): one customer group of `sims` SIMs (100,000 by
 * default, a million with `--scale 1000000`) over sub-customers three levels deep, as it looks
 * the day after an operator's daily usage run: every SIM updated in one run of `sims / 10,000`
 * seconds (10,000 SIMs a second), in an order unrelated to the ids, so that
 * `updated_after=<yesterday>` matches the whole fleet. Statuses are spread evenly.
 *
 * The SIM items are made by the seed loader's own code (simItemOf) and the list index by the
 * bulk builder (shared/sim-lists/bulk-build.ts), the same entries the stream consumer writes;
 * all of it is generated as it is written, so a million SIMs (about seven million items) never
 * sit in memory at once.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { seedItems, simItemOf } from '../../local/seed/items';
import { parseSeedDocument } from '../../local/seed/validate';
import type { SimItem } from '../../shared/db/items';
import { bulkEntryAndCountItems, positionAssigner, readyGroupItems } from '../../shared/sim-lists/bulk-build';
import { fencesForIds } from '../../shared/sim-lists/fences';
import { directoryItems } from '../../shared/groups/directory';
import { simIccidItem } from '../../shared/sims/sim-writes';
import type { BenchCredential } from './bench-seed';

/** The fleet's tree: the group, two regions, three sites. */
export const scaleCustomers = [
  { id: 'scale', name: 'Scale Group', parent: null },
  { id: 'scale-north', name: 'Scale North', parent: 'scale' },
  { id: 'scale-south', name: 'Scale South', parent: 'scale' },
  { id: 'scale-north-a', name: 'Scale North A', parent: 'scale-north' },
  { id: 'scale-north-b', name: 'Scale North B', parent: 'scale-north' },
  { id: 'scale-south-a', name: 'Scale South A', parent: 'scale-south' },
] as const;

/** Owners by SIM index modulo 20: 10 % the group, 10 % each region, 25 %, 25 % and 20 % the sites. */
const owners = ['scale', 'scale', 'scale-north', 'scale-north', 'scale-south', 'scale-south', ...Array(5).fill('scale-north-a'), ...Array(5).fill('scale-north-b'), ...Array(4).fill('scale-south-a')] as string[];
const statuses = ['active', 'inactive', 'suspended', 'cancelled', 'stock', 'dispatched', 'trial'] as const;

/**
 * How the fleet's SIMs come in (issue #31, point 8): `bulk` written with their list index by the
 * bulk builder before the consumers start (what section 5 measured first); through a door users
 * use, with the stream consumer keeping the index as it does for them: `write` the SIM write
 * path (shared/sims/sim-writes.ts putSims, what the seed's `stream` mode and every writer use),
 * `seed` seed documents loaded onto the running table (`npm run seed`'s loadSeedDocument), `feed`
 * `sim` records through the operator feed's queue and consumer.
 */
export type FleetDoor = 'bulk' | 'write' | 'seed' | 'feed';
/** The order a door's SIMs are sent in: ids ascending, in an order unrelated to them, or in bursts (./door-fleet.ts). */
export type FleetOrder = 'ascending' | 'random' | 'bursts';

/** What the fleet is, for building requests and reading the figures. */
export interface ScaleFleet {
  groupId: string;
  sims: number;
  firstId: number;
  /** The usage run (a door: the SIMs' coming in): first and last update time (epoch ms). */
  runStart: number;
  runEnd: number;
  credentials: BenchCredential[];
  apiKey: string;
  door: FleetDoor;
  /** Absent for `bulk`. */
  order?: FleetOrder;
}

const paths = new Map<string, string[]>();
for (const customer of scaleCustomers) {
  paths.set(customer.id, customer.parent === null ? [customer.id] : [...paths.get(customer.parent)!, customer.id]);
}
const names = new Map<string, string>(scaleCustomers.map((customer) => [customer.id, customer.name]));

/** The owner of SIM `index` (0-based) of the fleet. */
export const ownerOf = (index: number): string => owners[index % owners.length]!;

/** A multiplicative permutation of 0..n-1: the rank in the usage run of SIM index i. */
const multiplier = 7_919;
const inverseOf = (value: number, modulus: number): number => {
  let [oldR, r] = [value, modulus];
  let [oldS, s] = [1, 0];
  while (r !== 0) {
    const quotient = Math.floor(oldR / r);
    [oldR, r] = [r, oldR - quotient * r];
    [oldS, s] = [s, oldS - quotient * s];
  }
  return ((oldS % modulus) + modulus) % modulus;
};

/** SIM `index` of the fleet in the seed document's vocabulary, updated at `updatedAtMs`. */
export const seedSimOf = (fleet: ScaleFleet, index: number, updatedAtMs: number) => {
  const id = fleet.firstId + index;
  return {
    id,
    iccid: `8944${String(id).padStart(15, '0')}`,
    msisdn: `4477${String(id).padStart(9, '0').slice(-9)}`,
    status: statuses[index % statuses.length]!,
    connection_status: index % 3 === 0 ? ('inactive' as const) : ('active' as const),
    customer: ownerOf(index),
    tariff_name: 'IoT 1GB',
    data_used_mb: `${(index % 997) + 0.25}`,
    data_overage_mb: '0.00',
    base_cost: '3.50',
    overage_cost: '0.00',
    data_bundle: null as string | null,
    updated_at: new Date(updatedAtMs).toISOString().replace('Z', '+00:00'),
  };
};

/** The SIM item of index `index` of the fleet, updated at `updatedAtMs` (made by the seed loader's own code). */
export const simOf = (fleet: ScaleFleet, index: number, updatedAtMs: number): SimItem => {
  const sim = seedSimOf(fleet, index, updatedAtMs);
  return simItemOf(sim, { name: names.get(sim.customer)!, path: paths.get(sim.customer)! }, null, sim.updated_at);
};

/** The fleet's shape for `sims` SIMs, its run ending an hour before `now`, with `developers` developers, coming in by `door` (in `order`). */
export const scaleFleet = (sims: number, developers: number, now = Date.now(), door: FleetDoor = 'bulk', order?: FleetOrder): ScaleFleet => {
  const apiKey = 'devkey_scalekey_ScaleKeySecret0123456789abcdefghij';
  const runEnd = now - 3_600_000;
  return {
    groupId: 'scale',
    sims,
    firstId: 7_000_001,
    runStart: runEnd - Math.ceil(sims / 10),
    runEnd,
    apiKey,
    credentials: Array.from({ length: developers }, (_, index) => ({
      userId: `scale-u${index}`,
      bearerToken: `bearer_scaleu${index}_BenchTokenSecret${index}abcdefghijklmnop`,
      apiKey,
    })),
    door,
    ...(door === 'bulk' ? {} : { order: order ?? 'random' }),
  };
};

/** The update time of the SIM with run rank `rank` (10,000 a second). */
export const updateTimeOf = (fleet: ScaleFleet, rank: number): number => fleet.runStart + Math.floor(rank / 10);

/** The fleet's customers, developers and key (through the seed loader), its group's directory and, for a door, its empty list index. */
function* groupItems(fleet: ScaleFleet): Generator<Record<string, unknown>> {
  yield* seedItems(
    parseSeedDocument({
      customers: scaleCustomers.map((customer) => ({ ...customer, sms_enabled: true })),
      users: fleet.credentials.map((credential) => ({ id: credential.userId, email: `${credential.userId}@scale.example`, customer: 'scale', active: true, roles: ['developer'] })),
      bearer_tokens: fleet.credentials.map((credential) => ({ token: credential.bearerToken, user: credential.userId, revoked: false })),
      api_keys: [{ key: fleet.apiKey, customer: 'scale', revoked: false }],
    }),
  );
  yield* directoryItems({ customers: scaleCustomers.map((customer) => ({ id: customer.id, name: customer.name, path: paths.get(customer.id)! })), bundles: [], poolUsage: [] }) as unknown as Record<string, unknown>[];
  if (fleet.door !== 'bulk') yield* readyGroupItems(fleet.groupId, [0], 0);
}

/** Every item of the fleet: its group (groupItems), then, built in bulk, SIMs with their entries, then counts. */
function* fleetItems(fleet: ScaleFleet, nowMs: number): Generator<Record<string, unknown>> {
  yield* groupItems(fleet);
  if (fleet.door !== 'bulk') return;
  const ids = Array.from({ length: fleet.sims }, (_, index) => fleet.firstId + index);
  const fences = fencesForIds(ids);
  yield* readyGroupItems(fleet.groupId, fences, ids.at(-1)!);
  const assigner = positionAssigner(nowMs);
  const inverse = inverseOf(multiplier % fleet.sims, fleet.sims);
  // SIMs in order of update (the run's order), so that positions follow it.
  const inRunOrder = function* (): Generator<SimItem> {
    for (let rank = 0; rank < fleet.sims; rank += 1) {
      const sim = simOf(fleet, Number((BigInt(rank) * BigInt(inverse)) % BigInt(fleet.sims)), updateTimeOf(fleet, rank));
      assigner.assign(sim);
      yield sim;
    }
  };
  const pending: SimItem[] = [];
  const withSims = function* (): Generator<SimItem> {
    for (const sim of inRunOrder()) {
      pending.push(sim);
      yield sim;
    }
  };
  for (const item of bulkEntryAndCountItems(withSims(), new Map([[fleet.groupId, fences]]))) {
    while (pending.length > 0) {
      const sim = pending.shift()!;
      yield sim as unknown as Record<string, unknown>;
      yield simIccidItem(sim);
    }
    yield item;
  }
  yield* assigner.sequenceItems();
}

/**
 * Writes the fleet into the table with `parallel` BatchWriteItem calls in flight, retrying
 * unprocessed items; `onProgress` hears the number written now and then. Returns the number of
 * items. A fleet that comes in by a door: only its group (its SIMs come later, ./door-fleet.ts).
 */
export const writeScaleFleet = async (
  client: DynamoDBClient,
  tableName: string,
  fleet: ScaleFleet,
  options: { parallel?: number; onProgress?: (written: number) => void } = {},
): Promise<number> => {
  const db = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  const items = fleetItems(fleet, Date.now());
  let written = 0;
  let reported = 0;
  const nextBatch = (): Record<string, unknown>[] => {
    const batch: Record<string, unknown>[] = [];
    while (batch.length < 25) {
      const next = items.next();
      if (next.done) break;
      batch.push(next.value);
    }
    return batch;
  };
  const worker = async (): Promise<void> => {
    for (let batch = nextBatch(); batch.length > 0; batch = nextBatch()) {
      let pending = batch.map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 1; pending.length > 0; attempt += 1) {
        if (attempt > 20) throw new Error(`${pending.length} fleet items stayed unprocessed`);
        if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
        const output = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
        pending = (output.UnprocessedItems?.[tableName] ?? []) as typeof pending;
      }
      written += batch.length;
      if (written - reported >= 100_000) {
        reported = written;
        options.onProgress?.(written);
      }
    }
  };
  await Promise.all(Array.from({ length: options.parallel ?? 16 }, worker));
  return written;
};

/** How a door's fleet is named in labels and headings. */
export const doorText = (door: FleetDoor, order?: FleetOrder): string =>
  door === 'bulk' ? 'built in bulk' : `through ${{ write: 'the SIM write path', seed: 'the seed', feed: 'the operator feed' }[door]}, ${order === 'bursts' ? 'in bursts' : `ids ${order}`}`;

/**
 * The targets' section label of a scale run: `5 scale (100,000)` for a fleet built in bulk,
 * `5 scale (100,000 through the seed, ids random)` for one through a door: one per fleet size and
 * door and order (RESULTS.md keeps each).
 */
export const scaleSectionLabel = (sims: number, door: FleetDoor = 'bulk', order?: FleetOrder): string =>
  `5 scale (${sims.toLocaleString('en-GB')}${door === 'bulk' ? '' : ` ${doorText(door, order)}`})`;
