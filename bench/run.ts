/**
 * `npm run bench`: measures the cost of every route on this machine (issue #7) and writes
 * bench/results.json and bench/RESULTS.md. Sections (docs/benchmarks.md):
 *
 * 1. bundles     – size and load time of every function's bundle, beside two baselines
 * 2. round-trips – DynamoDB calls and sequential round trips per request, success and 429
 * 3. latency     – warm in-process p50 / p99 of each Area A route, beside raw GetItem
 * 4. throughput  – requests/s of the SIM read through the gateway, beside GetItem's ceiling
 * 5. scale       – list pages of a fleet of 100,000 SIMs (--scale N: N SIMs): round trips,
 *                  read units, p50, p99; write units per kind of SIM change; lag; hot keys
 * 6. rate-limiter – 300 concurrent requests of one developer admit exactly 10
 * 7. feed        – 100,000 in-order usage records through the operator feed's consumer, beside
 *                  the same write requests sent directly (--feed-records=N); memory growth; 20,000
 *                  new SIMs the same way (--feed-new-sims=N)
 * 8. seed        – `npm run seed` of a generated fleet file of 10,000 and 100,000 SIMs
 *                  (--seed-sims=N: a tenth of N and N) into a DynamoDB Local of its own: time, peak
 *                  memory, its growth per SIM; A1 pages of the loaded fleet
 *
 * It starts what it needs (DynamoDB Local, the SQS emulator, the gateway, the SMS simulator,
 * a Stripe stand-in: startLocalRuntime), stops all of it, and exits 0 even when targets are
 * missed, printing PASS / MISS per target.
 *
 * Options: --only=bundles,latency,...  run some sections (then nothing is written unless --write)
 *          --write                       write the result files even for a partial run
 *          --merge                       merge a partial run into the result files: its sections replace
 *                                        theirs, a scale run of another size is kept beside the other
 *                                        (npm run bench -- --only=scale --scale 1000000 --merge)
 *          --quick                       fewer samples (a smoke run; figures are rougher)
 *          --keep-bundles=DIR            keep the bundles and esbuild output in DIR
 *          --no-instructions             skip the instruction counts of section 1 (callgrind: 2-4 min)
 *          --scale=N                     the scale section's fleet: N SIMs (default 100000; 1000000 takes
 *                                        about half an hour more to load, not for CI)
 *          --scale-door=DOOR             how its SIMs come in: bulk (default: written with their list index
 *                                        before the consumers start), write (the SIM write path), seed
 *                                        (seed documents onto the running table), feed (the operator feed:
 *                                        slow on main, issue #31 point 7); the stream consumer keeps the index
 *          --scale-order=ORDER           a door's order: random (default), ascending, bursts
 *          --feed-records=N              the feed section's records (default 100000)
 *          --feed-new-sims=N             the feed section's new SIMs (default 20000)
 *          --feed-file-lines=N           the lines of the file it sends through admin feed (default 1000000)
 *          --seed-sims=N                 the seed section's big fleet (default 100000; 1000000 takes about an hour)
 *          --peer-bundle=PATH            a peer's bundle (index.mjs, or its folder) cold-called beside get-sim;
 *          --peer-event=PATH             its event (default event.json beside it): docs/benchmarks.md, "The peer"
 *          --render                      measure nothing: rewrite RESULTS.md from results.json with the
 *                                        causes of bench/causes.ts as they are now
 */
import { fileURLToPath } from 'node:url';
import { benchLog as log } from './lib/bench-log';
import type { SectionContext } from './lib/context';
import { guardedSections } from './lib/guarded-section';
import { currentLoad, runContext, wasLoaded } from './lib/machine';
import type { BenchResults } from './lib/report';
import { renderResultFiles, reportRun } from './lib/result-files';
import { runOptions, type RunOptions } from './lib/run-options';
import { runRuntimeSections } from './lib/runtime-sections';
import { Targets } from './lib/targets';
import { runBundles } from './sections/bundles';
import { runSeed } from './sections/seed';

const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));

/** A run: section 1 in this process, the others over one local runtime, then the report and the result files. */
const main = async ({ sections, sizes, keepBundles, countInstructions, peerBundle, write, merge }: RunOptions): Promise<void> => {
  const started = performance.now();
  const context = runContext();
  const targets = new Targets();
  const notes: string[] = [];
  const sectionContext: SectionContext = { targets, notes, log };
  const results: Omit<BenchResults, 'durationSeconds' | 'loadedMachine'> = { context, sections, targets: targets.results, notes };
  log(`commit ${context.commit}; ${context.machine.cores} cores, load average ${context.loadAverage.start}; sections: ${sections.join(', ')}`);
  const guarded = guardedSections(sectionContext);

  if (sections.includes('bundles')) results.bundles = await guarded('bundles', () => runBundles(sectionContext, { keepDir: keepBundles, instructions: countInstructions, peer: peerBundle }));

  if (sections.some((name) => name !== 'bundles' && name !== 'seed')) await runRuntimeSections({ sections, sizes, context: sectionContext, guarded, results });

  if (sections.includes('seed')) results.seed = await guarded('seed', () => runSeed(sectionContext, { root: repositoryRoot, sims: sizes.seedSims }));

  context.loadAverage.end = currentLoad();
  const complete: BenchResults = {
    ...results,
    loadedMachine: wasLoaded(context),
    durationSeconds: Math.round((performance.now() - started) / 1000),
  };
  reportRun(complete, { write, merge });
};

const options = runOptions();
if (options.render) {
  renderResultFiles();
} else {
  main(options).then(
    () => {
      process.exitCode = 0;
    },
    (error: unknown) => {
      // Only a defect of the benchmark itself ends up here; missed targets never do.
      log(`benchmark failed: ${(error as Error).stack ?? error}`);
      process.exitCode = 1;
    },
  );
}
