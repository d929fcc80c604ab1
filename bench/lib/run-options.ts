import { readPeerBundle, type PeerBundle } from './peer';
import type { FleetDoor, FleetOrder } from './scale-fleet';

/** The sections of `npm run bench`, in the order they run. */
export const allSections = ['bundles', 'round-trips', 'latency', 'throughput', 'scale', 'rate-limiter', 'feed', 'seed'] as const;

/** One section's name. */
export type SectionName = (typeof allSections)[number];

/** `--name=value`, `--name value` (a value not starting with --), or `--name` alone (''). */
export const option = (name: string, argv: string[] = process.argv.slice(2)): string | undefined => {
  const prefix = `--${name}=`;
  const index = argv.findIndex((argument) => argument === `--${name}` || argument.startsWith(prefix));
  if (index < 0) return undefined;
  const found = argv[index]!;
  if (found.startsWith(prefix)) return found.slice(prefix.length);
  const next = argv[index + 1];
  return next !== undefined && !next.startsWith('--') ? next : '';
};

/** How many samples, seconds, developers and records the sections use (--quick: fewer). */
export interface RunSizes {
  latencySamples: number;
  latencyWarmup: number;
  scaleSamples: number;
  throughputSeconds: number;
  throughputWarmup: number;
  scaleSims: number;
  /** How the scale fleet's SIMs come in (--scale-door; default bulk) and in what order (--scale-order; default random). */
  scaleDoor: FleetDoor;
  scaleOrder: FleetOrder;
  scalePageSize: number;
  scaleSweep: number;
  scaleWriteRounds: number;
  scaleJournalBatches: number;
  throughputUsers: number;
  otherBenchUsers: number;
  scaleUsers: number;
  rateLimiterArrivals: number;
  feedRecords: number;
  feedNewSims: number;
  feedFileLines: number;
  /** The big fleet of the seed section (the small one is a tenth of it). */
  seedSims: number;
}

/** What the command line asks of a run (bench/run.ts lists the options). */
export interface RunOptions {
  sections: SectionName[];
  /** --merge: merge a partial run into the result files. */
  merge: boolean;
  /** Whether the result files are written: a full run, --write or --merge. */
  write: boolean;
  /** --render: measure nothing, rewrite RESULTS.md from results.json. */
  render: boolean;
  /** --keep-bundles=DIR. */
  keepBundles?: string;
  /** False with --no-instructions. */
  countInstructions: boolean;
  /** --peer-bundle (and --peer-event), read. */
  peerBundle?: PeerBundle;
  sizes: RunSizes;
}

/** An option's value among `values` (`fallback` when not given); another value throws. */
const choice = <T extends string>(value: string | undefined, values: readonly T[], fallback: T, name: string): T => {
  if (value === undefined || value === '') return fallback;
  if (!(values as readonly string[]).includes(value)) throw new Error(`--${name} takes one of ${values.join(', ')}, not ${value}`);
  return value as T;
};

/** Reads the run's options from the command line; an unknown section throws. */
export const runOptions = (argv: string[] = process.argv.slice(2)): RunOptions => {
  const read = (name: string) => option(name, argv);
  const only = read('only');
  const sections: SectionName[] = only
    ? only.split(',').map((name) => {
        if (!(allSections as readonly string[]).includes(name)) throw new Error(`unknown section ${name}; sections: ${allSections.join(', ')}`);
        return name as SectionName;
      })
    : [...allSections];
  const quick = read('quick') !== undefined;
  const merge = read('merge') !== undefined;
  const write = read('write') !== undefined || merge || only === undefined;
  const keepBundles = read('keep-bundles') || undefined;
  const countInstructions = read('no-instructions') === undefined;
  const peerBundle = read('peer-bundle') ? readPeerBundle(read('peer-bundle')!, read('peer-event') || undefined) : undefined;

  const sizes: RunSizes = {
    latencySamples: quick ? 40 : 200,
    latencyWarmup: quick ? 5 : 20,
    // 100 a case: the nearest-rank p99 of 100 is the 99th slowest (of 15 it was the slowest).
    scaleSamples: quick ? 3 : 100,
    throughputSeconds: quick ? 3 : 10,
    throughputWarmup: quick ? 1 : 2,
    scaleSims: Number(read('scale') || 100_000),
    scaleDoor: choice(read('scale-door'), ['bulk', 'write', 'seed', 'feed'] as const, 'bulk', 'scale-door'),
    scaleOrder: choice(read('scale-order'), ['ascending', 'random', 'bursts'] as const, 'random', 'scale-order'),
    scalePageSize: 100,
    // SIMs changed in a row for the hottest-key figure (10,000: what a second of 10,000 changes a second writes).
    scaleSweep: quick ? 1_000 : 10_000,
    // Batches of 100 changes per kind for the amortised write units, count journal folds included (2,000 changes: about one fold's worth).
    scaleWriteRounds: quick ? 2 : 20,
    // Most batches of 100 usage changes before the list cases (a fold of 2,000 records crossed and nearly another fold's worth gathered: about 37).
    scaleJournalBatches: quick ? 2 : 60,
    // Developers: throughput's round robin needs one per 9 requests of its run; the rest serve
    // the other sections (every list request needs a developer that has not listed yet).
    throughputUsers: quick ? 600 : 2_600,
    otherBenchUsers: 600,
    // One fresh developer per list request of the scale section (one list per 5 s per developer).
    scaleUsers: quick ? 200 : 4_200,
    // The rate limiter's arrivals on a synthetic clock, checked against the sliding log.
    rateLimiterArrivals: quick ? 2_000 : 10_000,
    // The operator feed's in-order usage records (issue #20: 100,000).
    feedRecords: Number(read('feed-records') || (quick ? 10_000 : 100_000)),
    // New SIMs through the feed (issue #31: a fleet comes in whole, at 60 % of direct writes or more).
    feedNewSims: Number(read('feed-new-sims') || (quick ? 2_000 : 20_000)),
    // The lines of the file sent through admin feed (issue #20: a million must go through).
    feedFileLines: Number(read('feed-file-lines') || (quick ? 100_000 : 1_000_000)),
    // The fleet of `npm run seed` (issue #31: a million must load with memory bounded by a batch; 100,000 by default, a few minutes).
    seedSims: Number(read('seed-sims') || (quick ? 10_000 : 100_000)),
  };
  return { sections, merge, write, render: read('render') !== undefined, keepBundles, countInstructions, peerBundle, sizes };
};
