import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { seedFleetDocument, writeSeedFleetFile } from '../../bench/lib/seed-fleet-file';
import { loadSeedDocument } from '../../local/seed/load';
import { loadSeedFile } from '../../local/seed/read-file';
import { SeedValidationError } from '../../local/seed/validate';
import { createTestTable, testDynamoClient } from '../support/resources';
import { demoDocument, scanAll, smallDocument } from './fixtures';

describe('seed documents of real size', () => {
  let client: DynamoDBClient;
  let folder: string;
  beforeAll(() => {
    client = testDynamoClient();
    folder = mkdtempSync(join(tmpdir(), 'seed-scale-'));
  });
  afterAll(() => {
    client.destroy();
    rmSync(folder, { recursive: true, force: true });
  });

  it("loads 50,000 SIMs of one group held in memory (npm start's path) with an exact list index: a dry run", async () => {
    // Issue #31: 40,000 SIMs in one group overflowed the stack ("Maximum call stack size exceeded").
    const sims = 50_000;
    const now = Date.parse('2026-11-20T12:00:00Z');
    const document = seedFleetDocument({ sims, now });
    const counts = new Map<string, number>();
    const positions = new Map<string, { position: string; updatedAtMs: number; id: number }[]>();
    const listed = { id: new Map<string, number>(), time: new Map<string, number>() };
    const found: Record<string, Record<string, unknown>[]> = { sim_list_meta: [], sim_list_sequence: [], group_directory: [], data_bundle: [] };
    const result = await loadSeedDocument(document, { client, tableName: 'not-written' }, {
      now: new Date(now),
      sink: (item) => {
        const type = typeof item.type === 'string' ? item.type : 'sim_list_entry';
        counts.set(type, (counts.get(type) ?? 0) + 1);
        if (Object.hasOwn(found, type)) found[type]!.push(item);
        if (type === 'sim') {
          for (const [customerId, position] of Object.entries(item.list_pos as Record<string, string>)) {
            if (!positions.has(customerId)) positions.set(customerId, []);
            positions.get(customerId)!.push({ position, updatedAtMs: item.updated_at_ms as number, id: item.id as number });
          }
        }
        if (type === 'sim_list_counts') {
          const [, order, customerId] = /^SIML(I|T)C#([^#]+)/.exec(String(item.PK))!;
          const totals = order === 'I' ? listed.id : listed.time;
          const counted = Object.entries(item).filter(([name]) => /^c\d+[DI].$/.test(name)).reduce((sum, [, value]) => sum + Number(value), 0);
          totals.set(customerId!, (totals.get(customerId!) ?? 0) + counted);
        }
      },
    });

    // The generated fleet (bench/lib/seed-fleet-file.ts): 40 % owned by the group, 20 % by each sub-customer (the depot under north).
    const inScope = { fleet: sims, 'fleet-north': (sims * 4) / 10, 'fleet-south': (sims * 2) / 10, 'fleet-north-depot': (sims * 2) / 10 };
    const entries = 2 * Object.values(inScope).reduce((sum, count) => sum + count, 0);
    expect(Object.fromEntries(counts)).toEqual({
      customer: 4, user: 1, bearer_token: 1, api_key: 1, data_bundle: 1,
      sim: sims, sim_iccid: sims, msisdn_claim: sims, pool_contribution: sims / 2, sim_list_entry: entries,
      sim_list_sequence: found.sim_list_sequence!.length, sim_list_meta: 1, sim_list_counts: counts.get('sim_list_counts'), group_directory: 1,
    });
    expect(result).toEqual({ items: [...counts.values()].reduce((sum, count) => sum + count, 0), counts: Object.fromEntries(counts) });
    // Every list counts every SIM in its scope, in id order and in order of update.
    expect([Object.fromEntries(listed.id), Object.fromEntries(listed.time)]).toEqual([inScope, inScope]);
    // Each customer's positions of a day are 0, 1, 2 ... in order of update (ties by id), and the counters hand out the next.
    const sequences = new Map(found.sim_list_sequence!.map((item) => [`${String(item.PK).slice('SIMLISTSEQ#'.length)} ${String(item.SK)}`, item.next]));
    for (const [customerId, list] of positions) {
      const byDay = new Map<string, typeof list>();
      for (const entry of list) {
        const day = entry.position.split('#')[0]!;
        if (!byDay.has(day)) byDay.set(day, []);
        byDay.get(day)!.push(entry);
      }
      for (const [day, ofDay] of byDay) {
        const inOrder = ofDay.toSorted((left, right) => left.updatedAtMs - right.updatedAtMs || left.id - right.id);
        expect(inOrder.map((entry) => entry.position)).toEqual(inOrder.map((_entry, index) => `${day}#${index}`));
        expect(sequences.get(`${customerId} ${day}`)).toBe(ofDay.length);
      }
    }
    expect(sequences.size).toBe([...positions.values()].reduce((sum, list) => sum + new Set(list.map((entry) => entry.position.split('#')[0])).size, 0));
    // One group: its fences cut every 500 ids, none sealed yet (256 a page), ready.
    expect(found.sim_list_meta).toEqual([
      expect.objectContaining({
        PK: 'SIMLIST#fleet', SK: 'META', state: 'ready', max_id: 1_000_000 + sims, sealed_pages: 0,
        fences: [0, ...Array.from({ length: sims / 500 - 1 }, (_, index) => 1_000_001 + 500 * (index + 1))],
      }),
    ]);
    // The bundle's pool: every other SIM, summed exactly, on the bundle and in the directory's shards.
    const pool = document.sims.filter((sim) => sim.data_bundle !== null).reduce((sum, sim) => sum + BigInt(sim.data_used_mb.replace('.', '')), 0n);
    expect(found.data_bundle![0]!.pool_used_mb).toBe(`${pool / 100n}.${String(pool % 100n).padStart(2, '0')}`);
    const shards = Object.entries(found.group_directory![0]!).filter(([name]) => name.startsWith('pool#b-fleet#'));
    expect([shards.length, shards.reduce((sum, [, value]) => sum + BigInt(value as number), 0n)]).toEqual([16, pool]);
  }, 120_000);

  it('refuses a big file whose last SIM is broken, as a whole, and writes nothing', async () => {
    const tableName = await createTestTable({ stream: false });
    const sims = 5_000;
    const refusal = async (breakLast: 'unknown-customer' | 'repeated-iccid') => {
      const file = join(folder, `${breakLast}.json`);
      await writeSeedFleetFile(file, { sims, breakLast });
      return loadSeedFile(file, { client, tableName }).catch((error: unknown) => error);
    };
    const last = `sims[${sims - 1}] (id ${1_000_000 + sims})`;
    const [unknownCustomer, repeatedIccid] = await Promise.all([refusal('unknown-customer'), refusal('repeated-iccid')]);
    expect(unknownCustomer).toBeInstanceOf(SeedValidationError);
    expect((unknownCustomer as SeedValidationError).problems).toEqual([`${last}: customer "nope" does not exist`]);
    expect(repeatedIccid).toBeInstanceOf(SeedValidationError);
    expect((repeatedIccid as SeedValidationError).problems).toEqual([`${last}: iccid "8944000000001000001" is already used by sims[0] (id 1000001)`]);

    // Cut inside its last SIM: the file is not JSON, where it breaks off.
    const cut = join(folder, 'cut.json');
    await writeSeedFleetFile(cut, { sims });
    truncateSync(cut, statSync(cut).size - 40);
    const lines = readFileSync(cut, 'utf8').split('\n');
    const error = await loadSeedFile(cut, { client, tableName }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SeedValidationError);
    expect((error as SeedValidationError).problems).toEqual([
      `the file ${cut} is not valid JSON (the file ends before the document does at line ${lines.length}, column ${lines.at(-1)!.length + 1} (in sims[${sims - 1}]))`,
    ]);
    expect(lines.length).toBe(21 + sims - 1);
    expect(await scanAll(client, tableName)).toEqual([]);
  }, 120_000);

  it('loads a file exactly as the same document held in memory', async () => {
    const [fromFile, fromMemory] = await Promise.all([createTestTable({ stream: false }), createTestTable({ stream: false })]);
    const now = new Date('2026-11-22T12:00:00Z');
    const file = join(folder, 'demo.json');
    const document = { ...demoDocument(), sims: [...demoDocument().sims!, ...smallDocument().sims.map((sim, index) => ({ ...sim, id: 9001 + index, iccid: `89440000000000090${index}`, msisdn: null, customer: 'globex', data_bundle: null }))] };
    writeFileSync(file, JSON.stringify(document, null, 1));
    const [loadedFromFile, loadedFromMemory] = await Promise.all([
      loadSeedFile(file, { client, tableName: fromFile }, { now }),
      loadSeedDocument(document, { client, tableName: fromMemory }, { now }),
    ]);
    expect(loadedFromFile).toEqual(loadedFromMemory);
    const sorted = (items: Record<string, unknown>[]) => items.toSorted((left, right) => `${left.PK} ${left.SK}`.localeCompare(`${right.PK} ${right.SK}`));
    expect(sorted(await scanAll(client, fromFile))).toEqual(sorted(await scanAll(client, fromMemory)));
    expect(loadedFromFile.counts.sim).toBe(33);
  });

  it('loads a file into a table in use through the SIM write path, in batches', async () => {
    const tableName = await createTestTable({ stream: false });
    const file = join(folder, 'in-use.json');
    const now = Date.parse('2026-11-20T12:00:00Z');
    await writeSeedFleetFile(file, { sims: 300, now });
    const result = await loadSeedFile(file, { client, tableName }, { listIndex: 'stream', now: new Date(now) });
    expect(result.counts).toEqual({ customer: 4, user: 1, bearer_token: 1, api_key: 1, data_bundle: 1, sim: 300, sim_iccid: 300, msisdn_claim: 300 });
    const stored = await scanAll(client, tableName);
    const ofType = (type: string) => stored.filter((item) => item.type === type);
    // The SIMs carry their positions (the stream consumer lists them); the new group has its empty index and directory.
    expect(ofType('sim').filter((sim) => sim.listed_at_ms === now && Object.keys(sim.list_pos as object).length > 0)).toHaveLength(300);
    expect([ofType('sim_iccid').length, ofType('msisdn_claim').length, ofType('sim_list_meta').length, ofType('group_directory').length]).toEqual([300, 300, 1, 1]);
    expect(ofType('sim_list_entry')).toEqual([]);
  });

  it('refuses a file that gives a section twice, or another key, naming them', async () => {
    const tableName = await createTestTable({ stream: false });
    const file = join(folder, 'twice.json');
    writeFileSync(file, '{"$comment": "ignored", "customers": [], "sims": [], "constructor": [1], "customers": [{"id": "x"}]}');
    const error = await loadSeedFile(file, { client, tableName }).catch((caught: unknown) => caught);
    expect((error as SeedValidationError).problems).toEqual([
      'unknown top-level key "constructor" (expected customers, users, bearer_tokens, api_keys, data_bundles, sims, plans, stock, accounts, devices)',
      'the top-level key "customers" is given twice (a document has each section once)',
    ]);
    expect(await scanAll(client, tableName)).toEqual([]);
  });
});
