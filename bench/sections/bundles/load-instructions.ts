import type { SectionContext } from '../../lib/context';
import { countInstructions, inBatches, instructionCounter } from '../../lib/instructions';
import { median } from '../../lib/stats';
import { minimalName, type BundleFigure } from './figures';
import { benchLoadEnv, instructionLoaderScript } from './load-time';

/**
 * Callgrind processes per bundle for its load instructions: the median of three, the rounds
 * interleaved (every bundle once, then every bundle again), so that a moment when the machine's
 * other work shifts V8's background threads hits all bundles alike, and a process that draws
 * an unusual garbage collection does not decide a ratio.
 */
export const instructionRounds = 3;

/**
 * `instructionRounds` callgrind runs per loadable bundle, two at a time (the machine's cores),
 * after the load times so that they do not disturb them; each bundle's median, V8's hash-seed
 * search left out (../../lib/instructions.ts); then each bundle's import share (minus the
 * minimal handler's process).
 */
export const countLoadInstructions = async (
  context: SectionContext,
  figures: BundleFigure[],
  files: Map<string, string>,
  enabled: boolean,
): Promise<void> => {
  const loadable = figures.filter((figure) => files.has(figure.name) && !figure.error);
  const counter: ReturnType<typeof instructionCounter> = enabled ? instructionCounter() : { available: false, reason: 'not counted (--no-instructions)' };
  if (!counter.available) {
    for (const figure of loadable) figure.instructionsNote = counter.reason;
    context.notes.push(`Instruction counts of section 1: n/a, ${counter.reason}.`);
    return;
  }
  const started = performance.now();
  context.log(
    `bundles: counting the instructions of loading each of ${loadable.length} bundles (${counter.tool}, ` +
      `${instructionRounds} processes each in interleaved rounds, two at a time)`,
  );
  const runs = Array.from({ length: instructionRounds }, () => loadable).flat();
  const counted = await inBatches(
    runs.map((figure) => () => countInstructions(instructionLoaderScript, files.get(figure.name)!, { ...benchLoadEnv(), ...figure.env })),
    2,
  );
  for (const [index, figure] of loadable.entries()) {
    const samples = counted.filter((_, run) => run % loadable.length === index);
    const values = samples.flatMap(({ value }) => (value === undefined ? [] : [value]));
    if (values.length === 0) figure.instructionsNote = `callgrind failed: ${samples[0]?.error?.message ?? 'no count'}`;
    else {
      figure.processInstructions = median(values);
      figure.processInstructionsRange = [Math.min(...values), Math.max(...values)];
    }
  }
  const minimal = figures.find((figure) => figure.name === minimalName)?.processInstructions;
  for (const figure of loadable) {
    if (figure.processInstructions === undefined) continue;
    if (minimal === undefined) figure.instructionsNote ??= 'the minimal handler\'s process was not counted, so the import share is unknown';
    else figure.loadInstructions = figure.processInstructions - minimal;
  }
  context.log(`bundles: instructions counted in ${Math.round((performance.now() - started) / 1000)} s`);
};
