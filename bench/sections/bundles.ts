/**
 * Section 1, bundles: every function of the stack (the route table's routes, fallbacks
 * included, and the queue consumers) bundled with esbuild exactly as the stack bundles it
 * (infra/bundling.ts), beside two baselines bundled the same way: a minimal handler and a
 * handler that bundles only the DynamoDB document client. For each: the minified size, whether
 * Stripe is inside (esbuild metafile inputs under node_modules/stripe/), which packages weigh
 * most, and the time a fresh `node` process takes to import it (median of 21, the processes
 * of all bundles interleaved so that a busy moment hits them alike), and the instructions that
 * import executes, counted once per bundle under callgrind (bench/lib/instructions.ts; "n/a"
 * with the reason where Valgrind is absent), which a busy machine hardly changes.
 *
 * Then the cold import plus first call of every Area A route (issue #19): a fresh process
 * imports the bundle and invokes its handler once with the route's event fixture, against
 * DynamoDB Local with the bench seed (bench/lib/cold-call.ts, bench/lib/cold-call-backend.ts),
 * timed over several processes and counted once under callgrind. With `--peer-bundle` a peer
 * project's function (bench/lib/peer.ts) is loaded and cold-called the same way, and the
 * issue's targets against it are checked; without it they are SKIP.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SectionContext } from '../lib/context';
import type { PeerBundle } from '../lib/peer';
import { buildBundles } from './bundles/build';
import { recordBundleTargets } from './bundles/bundle-targets';
import { measureColdCalls } from './bundles/cold-calls';
import type { BundleFigure } from './bundles/figures';
import { countLoadInstructions } from './bundles/load-instructions';
import { measureLoadTimes } from './bundles/load-time';
import { recordPeerTargets } from './bundles/peer-targets';

export type { BundleFigure } from './bundles/figures';
export { benchLoadEnv } from './bundles/load-time';

/** Runs section 1 and records its targets. */
export const runBundles = async (
  context: SectionContext,
  options: { keepDir?: string; instructions?: boolean; peer?: PeerBundle } = {},
): Promise<BundleFigure[]> => {
  const outDir = options.keepDir ?? mkdtempSync(join(tmpdir(), 'sim-bench-bundles-'));
  mkdirSync(outDir, { recursive: true });
  const figures: BundleFigure[] = [];
  const files = new Map<string, string>();
  try {
    figures.push(...(await buildBundles(context, outDir, files, options.peer)));
    measureLoadTimes(context, figures, files);
    await countLoadInstructions(context, figures, files, options.instructions ?? true);
    await measureColdCalls(context, figures, files, { instructions: options.instructions ?? true, peer: options.peer });
  } finally {
    if (!options.keepDir) rmSync(outDir, { recursive: true, force: true });
  }
  recordBundleTargets(context, figures);
  recordPeerTargets(context, figures, options.peer !== undefined);
  return figures;
};
