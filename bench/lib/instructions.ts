/**
 * Instruction counts of loading a bundle, beside its load time (section 1): a fresh `node`
 * process that imports the bundle, run under Valgrind's callgrind, which reports the
 * instructions executed ("Ir") by every thread of the process, V8's JIT code included (JIT on:
 * Node's defaults, nothing turned off).
 *
 * One part of every process is left out of its count: V8's search for its hash seed
 * (`v8::internal::HashSeed::InitializeRoots`), which draws a random seed and searches for a
 * prime from it. It took from about 4 to 19 M instructions in the runs measured, at random and
 * whatever the process then loads, so it made two counts of the same bundle differ by up to
 * 15 M, and a ratio within a few percent of its target land on either side from run to run.
 * Its cost is read from callgrind's output file (./callgrind-file.ts) and subtracted from every
 * process alike, the minimal handler's included, so the import shares do not change in
 * expectation, only their scatter: the same bundle then counts within about 1 % (V8's
 * background compiler threads and GC timing still vary a little). Section 1 still takes the
 * median of a few processes per bundle (`instructionRounds`).
 *
 * Why callgrind and not `perf stat -e instructions:u`: hardware counters are often absent in
 * virtual machines (on the machine this was written on `perf stat` answers `<not supported>`),
 * while callgrind counts in software anywhere. No V8 flag is set: `--hash-seed` and
 * `--single-threaded` would each make the count repeatable but change what is counted (Node's
 * builtin modules are then compiled without their code cache, about 120 M instructions more in
 * the DynamoDB-only baseline's import alone), which is no longer what a function's cold start runs.
 *
 * Valgrind is not a dependency of the project (and not in CI): without it the counts are
 * "n/a" with the reason, and the rest of the benchmark runs as before. Under callgrind a
 * process runs about 50 times slower: about 10-30 s per bundle on 2 cores, two at a time.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { callgrindTotal, inclusiveCost } from './callgrind-file';
import { runToClose } from './child-output';

/** Whether instructions can be counted here, and with what (or why not). */
export type InstructionCounter = { available: true; tool: string } | { available: false; reason: string };

/** Finds Valgrind (`valgrind --version`); the reason when it is absent or does not run. */
export const instructionCounter = (): InstructionCounter => {
  const found = spawnSync('valgrind', ['--version'], { encoding: 'utf8' });
  if (found.error) return { available: false, reason: `valgrind not found (${(found.error as NodeJS.ErrnoException).code ?? found.error.message})` };
  if (found.status !== 0) return { available: false, reason: `valgrind --version exited with ${found.status}` };
  return { available: true, tool: `${found.stdout.trim()} callgrind` };
};

/**
 * Instructions executed by a fresh `node` process (this very Node binary) that imports `file`
 * and checks its `handler` export, under callgrind; the whole process, Node's start included,
 * V8's hash-seed search left out.
 * `loaderScript` is the module the process evaluates (`--input-type=module -e`), `file` its
 * first argument, `env` the process's environment.
 */
export const countInstructions = async (loaderScript: string, file: string, env: Record<string, string>): Promise<number> =>
  (await countProcessInstructions(loaderScript, [pathToFileURL(file).href], env)).instructions;

/** The part of every process left out of its count: V8's search for its hash seed (see the module comment). */
export const isHashSeedSearch = (name: string): boolean => name.includes('HashSeed::InitializeRoots');

/**
 * Instructions executed by a fresh `node` process that evaluates `script` (an ES module,
 * `--input-type=module -e`) with `args`, under callgrind, V8's hash-seed search left out, and
 * what it wrote to stdout. Rejects when the process fails.
 */
export const countProcessInstructions = async (
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ instructions: number; stdout: string }> => {
  const dir = await mkdtemp(join(tmpdir(), 'bench-callgrind-'));
  const outFile = join(dir, 'callgrind.out');
  try {
    const { code, stdout, stderr } = await runToClose(
      'valgrind',
      ['--tool=callgrind', `--callgrind-out-file=${outFile}`, process.execPath, '--input-type=module', '-e', script, ...args],
      env,
    );
    if (code !== 0) throw new Error(`callgrind of ${args[0] ?? 'a script'} exited with ${code}: ${stderr.trim().split('\n').slice(-3).join(' ')}`);
    const profile = await readFile(outFile, 'utf8');
    const total = callgrindTotal(profile);
    if (total === undefined) throw new Error(`callgrind of ${args[0] ?? 'a script'} wrote no total`);
    return { instructions: total - inclusiveCost(profile, isHashSeedSearch), stdout };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

/** Runs `tasks` with at most `limit` at a time, in order; each result or its error. */
export const inBatches = async <T>(tasks: Array<() => Promise<T>>, limit: number): Promise<Array<{ value?: T; error?: Error }>> => {
  const results: Array<{ value?: T; error?: Error }> = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next;
      next += 1;
      try {
        results[index] = { value: await tasks[index]!() };
      } catch (error) {
        results[index] = { error: error as Error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
};
