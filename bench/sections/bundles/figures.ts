/** What section 1 records of each bundle (bench/sections/bundles.ts), and the baselines' names. */

/** A cold start: a fresh process imports the bundle and invokes its handler once (issue #19). */
export interface ColdCallFigure {
  /** Processes timed. */
  samples: number;
  /** Medians (ms): the import, the first invocation, and both together (per process, then the median). */
  importMs: number;
  callMs: number;
  coldMs: number;
  /** Median wall time of the whole process seen from the parent (Node's start and exit included). */
  processMs: number;
  /** The status the timed processes answered (the first one that was not the success path, if any). */
  status: number | null;
  /** Answers that were not the route's success path (2xx; a fallback's 404). */
  unexpected: number;
  /** Instructions (callgrind Ir) of one such process, Node's start included. */
  processInstructions?: number;
  /** Its import-and-call share: `processInstructions` minus the minimal handler's cold process. */
  coldInstructions?: number;
  /** The first call's share: `coldInstructions` minus the bundle's load instructions. */
  firstCallInstructions?: number;
  /** Why something is missing (valgrind absent, a failed process, an unexpected answer). */
  note?: string;
}

/** A function (or baseline) to bundle and measure, before its figures. */
export interface BundleCandidate {
  name: string;
  /** `peer`: another project's function given with --peer-bundle (bench/lib/peer.ts), loaded and cold-called like ours. */
  kind: 'route' | 'consumer' | 'baseline' | 'peer';
  /**
   * Environment beside the functions' own for loading it: the SMS senders are loaded a second
   * time with SMS_PROVIDER=aws (issue #21), which builds the AWS End User Messaging client at init.
   */
  env?: Record<string, string>;
  handler: string;
  /** Route area, or `consumer` / `baseline`. */
  group: string;
  /** Whether the function calls Stripe (its access lists a Stripe secret). */
  callsStripe: boolean;
  /** A checkout route: creates payment intents (holds STRIPE_SECRET_KEY). */
  checkout: boolean;
  /** The payment webhook: checks Stripe's signature (holds STRIPE_WEBHOOK_SECRET). */
  webhook: boolean;
  /** The consumer of the fulfilment queue (fulfil-order). */
  fulfilment: boolean;
}

/** One bundled function (or baseline) with its figures. */
export interface BundleFigure extends BundleCandidate {
  /** index.mjs in bytes (minified; the source map is a separate file). */
  bytes: number;
  /** Side modules beside index.mjs (infra/bundling.ts `sideModules`), which a cold start does not load. */
  sideFiles?: { file: string; bytes: number }[];
  mapBytes: number;
  containsStripe: boolean;
  /** Median time to import the bundle in a fresh node process (ms). */
  loadMs: number;
  /** Median wall time of the whole fresh process: start, import, exit (ms). */
  processMs: number;
  /**
   * Instructions (callgrind Ir, JIT on) of a fresh process that imports the bundle, Node's
   * start included and V8's hash-seed search left out: the median of `instructionRounds`
   * processes (./load-instructions.ts); absent when they could not be counted (see `instructionsNote`).
   */
  processInstructions?: number;
  /** The lowest and highest of those processes' counts. */
  processInstructionsRange?: [number, number];
  /** The import's share: `processInstructions` minus the minimal handler's (Node's start and the loader). */
  loadInstructions?: number;
  /** Why there are no instruction counts (e.g. valgrind not found). */
  instructionsNote?: string;
  /** The heaviest packages (or source folders) in the output, bytes in output. */
  topInputs: { name: string; bytes: number }[];
  /** What it carries beyond the DynamoDB-only baseline (by package or source folder). */
  beyondDynamoDb: { name: string; bytes: number }[];
  /** Area A routes, the minimal handler and the peer: the cold import plus first call. */
  coldCall?: ColdCallFigure;
  error?: string;
}

/** The minimal handler's name in the figures. */
export const minimalName = 'baseline: minimal handler';
/** The DynamoDB-only baseline's name in the figures: the measure of the size and load targets. */
export const dynamoName = 'baseline: DynamoDB-only handler';
