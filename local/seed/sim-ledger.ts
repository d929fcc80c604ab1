/**
 * What the seed loader keeps of each SIM between its two passes over a document (issue #31,
 * point 7): a compact record in typed arrays, so that a million SIMs are checked for uniqueness
 * and references, and their list index planned, without holding their entries.
 *
 * Per SIM: its id and update time (8 bytes each), its owner and bundle as numbers into the
 * lists of distinct names (4 each), its ICCID (16) and MSISDN digits (9) in exact numeric form,
 * and a flag (1): 50 bytes, in arrays grown by doubling (so up to twice that while the file is
 * read), plus three open-addressing tables of 4 bytes a slot (at most half full: 24 to 48 bytes a
 * SIM) that find a repeated id, ICCID or MSISDN as it is read; they are dropped once the file is
 * read. Planning the list index in bulk (listPlan) then takes 4 bytes a SIM and 4 per customer on
 * its path (its time positions), and while sorting 12 more. Distinct customer and bundle names
 * and each pool shard's sum are held once each. Measured: docs/seed.md, "Fleets of real size".
 */
import { fencesForIds } from '../../shared/sim-lists/fences';
import { positionAssigner } from '../../shared/sim-lists/bulk-build';
import { dayOf, formatPosition } from '../../shared/sim-lists/layout';
import { poolShardOf } from '../../shared/groups/directory';
import { msisdnDigits } from '../../shared/msisdn/msisdn-index';
import { parseIsoDateTime } from '../../shared/time/iso-date-time';
import { toHundredths } from '../../shared/vocabulary/decimal';
import type { SeedDocument } from './schema';

/** A SIM entry of the document after its own checks. */
export type SeedSim = SeedDocument['sims'][number];

/** Strings numbered in the order they are first seen (owners, bundles): a Map, never an object. */
class Names {
  private readonly numbers = new Map<string, number>();
  readonly list: string[] = [];

  numberOf(name: string): number {
    let number = this.numbers.get(name);
    if (number === undefined) {
      number = this.list.length;
      this.numbers.set(name, number);
      this.list.push(name);
    }
    return number;
  }
}

/** `array` copied into one of `length` elements (the arrays grow by doubling). */
const grown = <T extends Float64Array | Uint32Array | Int32Array | Uint8Array>(array: T, length: number): T => {
  const next = new (array.constructor as new (length: number) => T)(length);
  next.set(array);
  return next;
};

/** Mixes a 53-bit integer (and a second one) into 32 bits for the tables. */
const mix = (value: number, other = 0): number => {
  let hash = Math.imul((value >>> 0) ^ Math.imul(Math.floor(value / 4294967296), 0x9e3779b1), 0x85ebca6b);
  hash ^= Math.imul((other >>> 0) ^ Math.imul(Math.floor(other / 4294967296), 0xc2b2ae35), 0x27d4eb2f);
  hash ^= hash >>> 15;
  hash = Math.imul(hash, 0x2c1b3c6d);
  return (hash ^ (hash >>> 12)) >>> 0;
};

/**
 * An open-addressing set of record numbers keyed by what `hash` and `same` read from the
 * ledger's arrays: `claim(record)` answers the first record with the same key, or records this
 * one. 4 bytes a slot, at most half the slots used.
 */
class RecordTable {
  private slots = new Int32Array(1024).fill(-1);
  private used = 0;

  constructor(
    private readonly hash: (record: number) => number,
    private readonly same: (left: number, right: number) => boolean,
  ) {}

  claim(record: number): number {
    if ((this.used + 1) * 2 > this.slots.length) this.grow();
    const mask = this.slots.length - 1;
    for (let slot = this.hash(record) & mask; ; slot = (slot + 1) & mask) {
      const found = this.slots[slot]!;
      if (found === -1) {
        this.slots[slot] = record;
        this.used += 1;
        return -1;
      }
      if (this.same(found, record)) return found;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2).fill(-1);
    const mask = this.slots.length - 1;
    for (const record of old) {
      if (record === -1) continue;
      let slot = this.hash(record) & mask;
      while (this.slots[slot] !== -1) slot = (slot + 1) & mask;
      this.slots[slot] = record;
    }
  }
}

/** The ICCID (1 to 20 digits) as two exact numbers: its length with the digits before the last ten, and the last ten. */
const iccidParts = (iccid: string): [number, number] => [iccid.length * 1e10 + Number(iccid.slice(0, -10) || 0), Number(iccid.slice(-10))];

/** A problem of one SIM entry, reported by the ledger. */
export type SimProblem = (index: number, problem: string) => void;

/** What the list index needs of the ledger in bulk: each group's fences and each SIM's time positions. */
export interface ListPlan {
  /** Per customer group: its fences (shared/sim-lists/fences.ts) and its largest SIM id. */
  groups: Map<string, { fences: number[]; maxId: number }>;
  /** The time positions of SIM entry `index` (`list_pos` of its item). */
  positionsOf(index: number): Record<string, string>;
  /** The counters that hand out the next positions (sim_list_sequence items). */
  sequenceItems(): Record<string, unknown>[];
}

/**
 * The SIMs of one document, entry by entry (`add`, in document order: entry `index` of `sims`
 * is record `index`). Repeated ids, ICCIDs and MSISDNs are reported as they are read, naming
 * the first entry that holds the value; references to customers and bundles once the whole
 * document is read (`checkReferences`).
 */
export class SimLedger {
  /** SIM entries recorded (usable or not). */
  count = 0;
  private ids = new Float64Array(1024);
  /** `updated_at` in epoch ms; NaN when the entry has none (the load's time). */
  private updated = new Float64Array(1024);
  private owners = new Uint32Array(1024);
  /** Bundle number, -1 for none. */
  private bundles = new Int32Array(1024);
  private usable = new Uint8Array(1024);
  private iccidHigh = new Float64Array(1024);
  private iccidLow = new Float64Array(1024);
  /** MSISDN digits as a number (NaN: none) and their count (leading zeros count). */
  private msisdnValue = new Float64Array(1024);
  private msisdnLength = new Uint8Array(1024);
  private readonly ownerNames = new Names();
  private readonly bundleNames = new Names();
  private tables?: { ids: RecordTable; iccids: RecordTable; msisdns: RecordTable };
  /** Per bundle, its SIMs' usage in hundredths of a MB. */
  readonly poolHundredths = new Map<string, bigint>();
  /** Per bundle and pool shard: the shard's sum and one SIM of it (for the group's directory). */
  private readonly shardSums = new Map<string, { simId: number; bundleId: string; hundredths: bigint }>();

  constructor() {
    this.tables = {
      ids: new RecordTable((record) => mix(this.ids[record]!), (left, right) => this.ids[left] === this.ids[right]),
      iccids: new RecordTable(
        (record) => mix(this.iccidHigh[record]!, this.iccidLow[record]!),
        (left, right) => this.iccidHigh[left] === this.iccidHigh[right] && this.iccidLow[left] === this.iccidLow[right],
      ),
      msisdns: new RecordTable(
        (record) => mix(this.msisdnValue[record]!, this.msisdnLength[record]!),
        (left, right) => this.msisdnValue[left] === this.msisdnValue[right] && this.msisdnLength[left] === this.msisdnLength[right],
      ),
    };
  }

  /** The label of SIM entry `index` in problems: `sims[3] (id 1004)`. */
  label(index: number): string {
    return `sims[${index}] (id ${this.ids[index]})`;
  }

  /**
   * Records SIM entry `count` (the next): `sim` when it passed its own checks, undefined when it
   * did not (it then takes part in nothing else). Reports a repeated id, ICCID or MSISDN.
   */
  add(sim: SeedSim | undefined, report: SimProblem): void {
    const record = this.count;
    if (record === this.ids.length) this.grow(record * 2);
    this.count += 1;
    if (!sim || !this.tables) return;
    this.usable[record] = 1;
    this.ids[record] = sim.id;
    this.updated[record] = sim.updated_at === undefined ? Number.NaN : parseIsoDateTime(sim.updated_at, { requireOffset: true })!;
    this.owners[record] = this.ownerNames.numberOf(sim.customer);
    this.bundles[record] = sim.data_bundle === null ? -1 : this.bundleNames.numberOf(sim.data_bundle);
    [this.iccidHigh[record], this.iccidLow[record]] = iccidParts(sim.iccid);
    const digits = sim.msisdn === null ? '' : msisdnDigits(sim.msisdn);
    this.msisdnValue[record] = digits ? Number(digits) : Number.NaN;
    this.msisdnLength[record] = digits.length;

    const sameId = this.tables.ids.claim(record);
    if (sameId !== -1) report(record, `id "${sim.id}" is already used by ${this.label(sameId)}`);
    const sameIccid = this.tables.iccids.claim(record);
    if (sameIccid !== -1) report(record, `iccid "${sim.iccid}" is already used by ${this.label(sameIccid)}`);
    if (digits) {
      const sameMsisdn = this.tables.msisdns.claim(record);
      if (sameMsisdn !== -1) report(record, `msisdn "${sim.msisdn}" is already used by ${this.label(sameMsisdn)}`);
    }
    if (sim.data_bundle !== null) {
      const hundredths = toHundredths(sim.data_used_mb);
      this.poolHundredths.set(sim.data_bundle, (this.poolHundredths.get(sim.data_bundle) ?? 0n) + hundredths);
      const shard = `${sim.data_bundle}\u0000${poolShardOf(sim.id)}`;
      const sum = this.shardSums.get(shard);
      if (sum) sum.hundredths += hundredths;
      else this.shardSums.set(shard, { simId: sim.id, bundleId: sim.data_bundle, hundredths });
    }
  }

  /**
   * Reports each usable SIM whose customer or bundle does not exist, or whose bundle belongs to
   * neither its customer nor an ancestor (docs/seed.md). `customerIds` and `bundleIds` hold the
   * ids of every entry, usable or not (a SIM of an entry that failed its own checks is not
   * reported again); `paths` and `bundleOwners` those of usable ones.
   */
  checkReferences(
    known: { customerIds: Set<string>; bundleIds: Set<string>; paths: Map<string, string[]>; bundleOwners: Map<string, string> },
    report: SimProblem,
  ): void {
    const owners = this.ownerNames.list;
    const bundles = this.bundleNames.list;
    for (let record = 0; record < this.count; record += 1) {
      if (!this.usable[record]) continue;
      const customer = owners[this.owners[record]!]!;
      if (!known.customerIds.has(customer)) report(record, `customer "${customer}" does not exist`);
      if (this.bundles[record] === -1) continue;
      const bundle = bundles[this.bundles[record]!]!;
      if (!known.bundleIds.has(bundle)) {
        report(record, `data_bundle "${bundle}" does not exist`);
        continue;
      }
      const bundleOwner = known.bundleOwners.get(bundle);
      if (bundleOwner === undefined) continue; // it failed its own checks
      const path = known.paths.get(customer);
      if (path && known.customerIds.has(bundleOwner) && !path.includes(bundleOwner)) {
        report(record, `data_bundle "${bundle}" belongs to customer "${bundleOwner}", which is neither the SIM's customer nor one of its ancestors (${path.join(' → ')})`);
      }
    }
  }

  /** Drops what only the first pass needed (the uniqueness tables). */
  seal(): void {
    this.tables = undefined;
  }

  /** Whether SIM entry `index` is the one recorded (same id and ICCID): the file did not change between the passes. */
  matches(index: number, sim: SeedSim): boolean {
    const [high, low] = iccidParts(sim.iccid);
    return index < this.count && this.ids[index] === sim.id && this.iccidHigh[index] === high && this.iccidLow[index] === low;
  }

  /** Each bundle's pool usage per shard, one entry per shard with one of its SIMs (shared/groups/directory.ts directoryItems). */
  poolUsage(): { simId: number; bundleId: string; hundredths: bigint }[] {
    return [...this.shardSums.values()];
  }

  /**
   * Plans the list index of a new table in bulk (shared/sim-lists/bulk-build.ts): each group's
   * fences over its SIMs' ids in ascending order, and each SIM's time positions in the list of
   * every customer on its path, handed out in order of update (ties by id), as the stream
   * consumer's positions would be. `pathOf` gives each customer's path (a valid document: all).
   */
  listPlan(pathOf: (customerId: string) => string[], nowMs: number): ListPlan {
    const count = this.count;
    const owners = this.ownerNames.list;
    const ownerPaths = owners.map(pathOf);
    const groups = new Map<string, { fences: number[]; maxId: number }>();
    // Fences: each group's ids, sorted (one array for all, each group's ids side by side).
    const groupNames = new Names();
    const groupOfOwner = ownerPaths.map((path) => groupNames.numberOf(path[0]!));
    const starts = new Uint32Array(groupNames.list.length + 1);
    for (let record = 0; record < count; record += 1) starts[groupOfOwner[this.owners[record]!]! + 1]! += 1;
    for (let group = 0; group < groupNames.list.length; group += 1) starts[group + 1]! += starts[group]!;
    const filled = starts.slice(0, -1);
    const ids = new Float64Array(count);
    for (let record = 0; record < count; record += 1) ids[filled[groupOfOwner[this.owners[record]!]!]!++] = this.ids[record]!;
    groupNames.list.forEach((group, number) => {
      const own = ids.subarray(starts[number], starts[number + 1]).sort();
      groups.set(group, { fences: fencesForIds(own), maxId: own.at(-1) ?? 0 });
    });
    // Time positions: in order of update, ties by id.
    const updatedAt = (record: number) => (Number.isNaN(this.updated[record]) ? nowMs : this.updated[record]!);
    const order = new Uint32Array(count);
    for (let record = 0; record < count; record += 1) order[record] = record;
    order.sort((left, right) => updatedAt(left) - updatedAt(right) || this.ids[left]! - this.ids[right]!);
    const offsets = new Uint32Array(count + 1);
    for (let record = 0; record < count; record += 1) offsets[record + 1] = offsets[record]! + ownerPaths[this.owners[record]!]!.length;
    const sequences = new Uint32Array(offsets[count]!);
    const assigner = positionAssigner(nowMs);
    const days = new Map<number, string>();
    const dayOfRecord = (record: number): string => {
      const dayNumber = Math.floor(updatedAt(record) / 86_400_000);
      let day = days.get(dayNumber);
      if (day === undefined) days.set(dayNumber, (day = dayOf(updatedAt(record))));
      return day;
    };
    for (const record of order) {
      const day = dayOfRecord(record);
      ownerPaths[this.owners[record]!]!.forEach((customerId, depth) => {
        sequences[offsets[record]! + depth] = assigner.next(customerId, day);
      });
    }
    return {
      groups,
      positionsOf: (index) => {
        const day = dayOfRecord(index);
        return Object.fromEntries(ownerPaths[this.owners[index]!]!.map((customerId, depth) => [customerId, formatPosition(day, sequences[offsets[index]! + depth]!)]));
      },
      sequenceItems: () => assigner.sequenceItems(),
    };
  }

  private grow(length: number): void {
    this.ids = grown(this.ids, length);
    this.updated = grown(this.updated, length);
    this.owners = grown(this.owners, length);
    this.bundles = grown(this.bundles, length);
    this.usable = grown(this.usable, length);
    this.iccidHigh = grown(this.iccidHigh, length);
    this.iccidLow = grown(this.iccidLow, length);
    this.msisdnValue = grown(this.msisdnValue, length);
    this.msisdnLength = grown(this.msisdnLength, length);
  }
}
