/**
 * Writes a generated fleet's seed document (bench/lib/seed-fleet-file.ts) to a file:
 *
 *   npx tsx bench/seed-file.ts --sims 1000000 --out /tmp/fleet.json [--broken-last]
 *
 * then, e.g., `SEED_FILE=/tmp/fleet.json npm start`, or `npm run seed -- /tmp/fleet.json
 * --endpoint URL --table NAME --create-table` (docs/seed.md, "Fleets of real size").
 */
import { parseArgs } from 'node:util';
import { writeSeedFleetFile } from './lib/seed-fleet-file';

const { values } = parseArgs({
  options: { sims: { type: 'string', default: '40000' }, out: { type: 'string' }, 'broken-last': { type: 'boolean', default: false } },
});
const sims = Number(values.sims);
if (!values.out || !Number.isSafeInteger(sims) || sims < 0) {
  console.error('usage: npx tsx bench/seed-file.ts --sims N --out FILE [--broken-last]');
  process.exit(2);
}
const fleet = await writeSeedFleetFile(values.out, { sims, ...(values['broken-last'] ? { breakLast: 'unknown-customer' as const } : {}) });
console.log(`${values.out}: ${sims.toLocaleString('en-GB')} SIMs in customer group ${fleet.groupId} (${(fleet.bytes / 1048576).toFixed(1)} MB)`);
console.log(`  BEARER_TOKEN=${fleet.bearerToken}`);
console.log(`  API_KEY=${fleet.apiKey}`);
