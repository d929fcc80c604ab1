/**
 * A seed document of a fleet of any size, written to a file as it is generated (issue #31,
 * point 7: `npm start` with 40,000 SIMs in one group, `npm run seed` of a million): one customer
 * group `fleet` with three sub-customers, one developer with a bearer token and an API key of the
 * group, one data bundle carried by every other SIM, and `sims` SIMs with ids ascending, every
 * fifth suspended, each with its own ICCID and MSISDN, updated over the three days before `now`.
 * Written to a file, nothing of it is held in memory beyond one SIM's line.
 *
 *   npx tsx bench/seed-file.ts --sims 1000000 --out /tmp/fleet.json
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

/** What a generated fleet holds, for calling it afterwards. */
export interface SeedFleet {
  groupId: string;
  firstId: number;
  sims: number;
  bearerToken: string;
  apiKey: string;
  /** Bytes written. */
  bytes: number;
}

/** Options of a generated fleet. */
export interface SeedFleetOptions {
  sims: number;
  /** Id of the first SIM (the others follow it). */
  firstId?: number;
  /** The update times are spread over the three days before this (epoch ms). */
  now?: number;
  /**
   * Breaks the last SIM (a document the loader must refuse whole): it refers to a customer that
   * does not exist, or repeats the first SIM's ICCID.
   */
  breakLast?: 'unknown-customer' | 'repeated-iccid';
}

const groupId = 'fleet';
const customers = [
  { id: groupId, name: 'Fleet Group', parent: null, sms_enabled: true },
  { id: 'fleet-north', name: 'Fleet North', parent: groupId, sms_enabled: true },
  { id: 'fleet-south', name: 'Fleet South', parent: groupId, sms_enabled: false },
  { id: 'fleet-north-depot', name: 'Fleet North Depot', parent: 'fleet-north', sms_enabled: true },
];
/** Owners by SIM index modulo 10: 40 % the group itself, 20 % each sub-customer. */
const owners = [groupId, groupId, groupId, groupId, 'fleet-north', 'fleet-north', 'fleet-south', 'fleet-south', 'fleet-north-depot', 'fleet-north-depot'];
const statuses = ['active', 'active', 'inactive', 'active', 'suspended'] as const;
const bearerToken = 'bearer_fleet01_FleetTokenSecret0123456789abcdefghij';
const apiKey = 'devkey_fleet01_FleetKeySecret0123456789abcdefghijkl';
const threeDays = 3 * 86_400_000;

/** The fleet's sections other than its SIMs: customers, the developer, the token, the key, the bundle. */
export const fleetSections = () => ({
  customers,
  users: [{ id: 'fleet-dev', email: 'dev@fleet.example', customer: groupId, active: true, roles: ['developer'] }],
  bearer_tokens: [{ token: bearerToken, user: 'fleet-dev', revoked: false }],
  api_keys: [{ key: apiKey, customer: groupId, revoked: false }],
  data_bundles: [{ id: 'b-fleet', customer: groupId, allowance_mb: '10240000.00', monthly_cost: '5000.00', per_sim_access_fee: '1.00' }],
});

/** SIM `index` (from 0) of a fleet: its id, ICCID and MSISDN follow the index; its update time spreads the fleet over three days. */
export const fleetSim = (index: number, options: SeedFleetOptions) => {
  const firstId = options.firstId ?? 1_000_001;
  const now = options.now ?? Date.now();
  const id = firstId + index;
  const last = index === options.sims - 1;
  const updatedAt = now - threeDays + Math.floor((index * threeDays) / Math.max(options.sims, 1));
  return {
    id,
    iccid: `8944${String(last && options.breakLast === 'repeated-iccid' ? firstId : id).padStart(15, '0')}`,
    msisdn: `447${String(id).padStart(9, '0').slice(-9)}`,
    status: statuses[index % statuses.length]!,
    connection_status: index % 3 === 0 ? 'inactive' : 'active',
    customer: last && options.breakLast === 'unknown-customer' ? 'nope' : owners[index % owners.length]!,
    tariff_name: 'IoT 1GB',
    data_used_mb: `${index % 1000}.${String(index % 100).padStart(2, '0')}`,
    data_overage_mb: '0.00',
    base_cost: '3.50',
    overage_cost: '0.00',
    data_bundle: index % 2 === 0 ? 'b-fleet' : null,
    updated_at: new Date(updatedAt).toISOString().replace('Z', '+00:00'),
  };
};

/** The fleet's seed document held in memory (what `npm start` reads from SEED_FILE). */
export const seedFleetDocument = (options: SeedFleetOptions) => ({
  ...fleetSections(),
  sims: Array.from({ length: options.sims }, (_, index) => fleetSim(index, options)),
});

/** Writes the fleet's seed document to `file`, one SIM a line, without holding it; resolves once it is on disk. */
export const writeSeedFleetFile = async (file: string, options: SeedFleetOptions): Promise<SeedFleet> => {
  const fixed = { ...options, now: options.now ?? Date.now() };
  const out = createWriteStream(file);
  let bytes = 0;
  const write = async (text: string): Promise<void> => {
    bytes += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, 'drain');
  };
  const sections = Object.entries(fleetSections()).map(([name, entries]) => `  ${JSON.stringify(name)}: [\n${entries.map((entry) => `    ${JSON.stringify(entry)}`).join(',\n')}\n  ],\n`);
  await write(`{\n${sections.join('')}  "sims": [\n`);
  for (let index = 0; index < options.sims; index += 1) {
    await write(`    ${JSON.stringify(fleetSim(index, fixed))}${index + 1 < options.sims ? ',' : ''}\n`);
  }
  await write('  ]\n}\n');
  out.end();
  await once(out, 'finish');
  return { groupId, firstId: options.firstId ?? 1_000_001, sims: options.sims, bearerToken, apiKey, bytes };
};
