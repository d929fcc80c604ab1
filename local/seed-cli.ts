/**
 * Loads a seed document into a table, local or deployed:
 *
 *   npm run seed -- FILE [--table NAME] [--region REGION] [--endpoint URL] [--create-table]
 *   npm run seed -- FILE --dry-run
 *
 * The table defaults to TABLE_NAME (else `sim-service`), the region to AWS_REGION /
 * AWS_DEFAULT_REGION (else the AWS SDK's own configuration), the endpoint to
 * DYNAMODB_ENDPOINT (set it, or --endpoint, for DynamoDB Local). `--create-table` first
 * creates the table with the service's shape if it does not exist (meant for local use).
 * Into a table it created, the loader also writes the SIMs' list index itself; into a table
 * that exists (a deployed one, a running `npm start`) it writes the SIMs through the SIM write
 * path and the table's stream consumer builds their list entries (docs/seed.md).
 * The file is read incrementally, twice (once to check it whole, once to write it in batches),
 * never held whole: a file of a million SIMs loads with memory bounded by a batch and a few
 * dozen bytes per SIM (docs/seed.md, "Fleets of real size").
 * `--dry-run` checks the file and builds every item a load into a new table would write, list
 * index included, without any table: it prints what would be written and the process's peak
 * memory (how an operator sizes the machine for a fleet before loading it).
 * A broken document is refused as a whole: the problems are printed, nothing is written and
 * the exit code is 1. Usage errors exit with 2.
 */
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createTable, enableStream, tableExists } from './create-table';
import { peakRssOf } from './peak-memory';
import { seedFileSource } from './seed/read-file';
import { scanSeed, writeSeed } from './seed/load';
import { SeedValidationError } from './seed/validate';

const usage = 'usage: npm run seed -- FILE [--table NAME] [--region REGION] [--endpoint URL] [--create-table | --dry-run]';

/** Seconds since `started` (performance.now()), one decimal. */
const seconds = (started: number): string => ((performance.now() - started) / 1000).toFixed(1);

/** The items of a load by type, as the summary line shows them. */
const countsText = (counts: Record<string, number>): string => Object.entries(counts).map(([type, count]) => `${type} ${count}`).join(', ') || 'nothing';

/** `--dry-run`: the whole load into a new table, every item built and counted, none written. */
const dryRun = async (file: string, target: { client: DynamoDBClient; tableName: string }): Promise<number> => {
  const source = seedFileSource(file);
  const started = performance.now();
  const scan = await scanSeed(source, undefined);
  console.error(`Checked ${scan.sims.count.toLocaleString('en-GB')} SIMs and the rest of ${file} in ${seconds(started)} s`);
  const result = await writeSeed(scan, source, target, { listIndex: 'build', sink: () => undefined });
  const peak = peakRssOf(process.pid) ?? process.memoryUsage().rss / 1048576;
  console.log(
    `Dry run: ${result.items} items from ${file} would be written into a new table (${countsText(result.counts)}); nothing was written; ${seconds(started)} s, peak memory ${Math.round(peak)} MB`,
  );
  return 0;
};

const main = async (): Promise<number> => {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        table: { type: 'string' },
        region: { type: 'string' },
        endpoint: { type: 'string' },
        'create-table': { type: 'boolean', default: false },
        'dry-run': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(usage);
    return 0;
  }
  if (positionals.length !== 1) {
    console.error(usage);
    return 2;
  }
  const [file] = positionals as [string];
  if (values['dry-run'] && (values['create-table'] || values.table || values.endpoint)) {
    console.error(`--dry-run writes to no table: it takes no --table, --endpoint or --create-table\n${usage}`);
    return 2;
  }
  const tableName = values.table || process.env.TABLE_NAME || 'sim-service';
  const endpoint = values.endpoint || process.env.DYNAMODB_ENDPOINT || undefined;
  const region = values.region || process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || (endpoint ? 'eu-west-2' : undefined);
  const localCredentials = endpoint && !process.env.AWS_ACCESS_KEY_ID && !process.env.AWS_PROFILE;

  const client = new DynamoDBClient({
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint } : {}),
    ...(localCredentials ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  try {
    const target = { client, tableName };
    if (values['dry-run']) return await dryRun(file, target);
    const exists = await tableExists(client, tableName);
    if (!exists && !values['create-table']) {
      console.error(`Seed load failed: table ${tableName} does not exist${endpoint ? ` at ${endpoint}` : ''} (--create-table creates it)`);
      return 1;
    }
    // The whole document is checked (against the table's MSISDNs when it exists) before the table is created or written.
    const source = seedFileSource(file);
    const started = performance.now();
    const scan = await scanSeed(source, exists ? { db: DynamoDBDocumentClient.from(client), tableName } : undefined);
    console.error(`Checked ${scan.sims.count.toLocaleString('en-GB')} SIMs and the rest of ${file} in ${seconds(started)} s`);
    // A table made here is loaded before its stream is on: nothing reads the load's changes (the
    // list index is built with them), and DynamoDB Local writes a third faster without them.
    const created = !exists && (await createTable(client, tableName, { stream: false }));
    if (created) console.log(`Created table ${tableName}`);
    let reported = performance.now();
    const result = await writeSeed(scan, source, target, {
      listIndex: created ? 'build' : 'stream',
      // Progress on stderr, at most every 10 seconds: a million SIMs take a while.
      progress: ({ phase, sims, totalSims, items }) => {
        if (phase !== 'writing' || performance.now() - reported < 10_000) return;
        reported = performance.now();
        console.error(`Written ${sims.toLocaleString('en-GB')} of ${totalSims.toLocaleString('en-GB')} SIMs, ${items.toLocaleString('en-GB')} items, in ${seconds(started)} s`);
      },
    }).finally(() => (created ? enableStream(client, tableName) : undefined));
    console.log(`Loaded ${result.items} items from ${file} into table ${tableName}${endpoint ? ` at ${endpoint}` : ''} (${countsText(result.counts)})`);
    return 0;
  } catch (error) {
    if (error instanceof SeedValidationError) {
      console.error(`${error.message}\nNothing was written.`);
    } else {
      console.error(`Seed load failed: ${(error as Error).message}`);
    }
    return 1;
  } finally {
    client.destroy();
  }
};

process.exitCode = await main();
