import type { SectionContext } from '../../lib/context';
import { countInstructions, inBatches, instructionCounter } from '../../lib/instructions';
import { minimalName, type BundleFigure } from './figures';
import { benchLoadEnv, loaderScript } from './load-time';

/**
 * One callgrind run per loadable bundle, two at a time (the machine's cores), after the load
 * times so that it does not disturb them; then each bundle's import share (minus the minimal
 * handler's process).
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
  context.log(`bundles: counting the instructions of loading each of ${loadable.length} bundles (${counter.tool}, one process each, two at a time)`);
  const counted = await inBatches(
    loadable.map((figure) => () => countInstructions(loaderScript, files.get(figure.name)!, { ...benchLoadEnv(), ...figure.env })),
    2,
  );
  for (const [index, figure] of loadable.entries()) {
    const { value, error } = counted[index]!;
    if (value === undefined) figure.instructionsNote = `callgrind failed: ${error?.message ?? 'no count'}`;
    else figure.processInstructions = value;
  }
  const minimal = figures.find((figure) => figure.name === minimalName)?.processInstructions;
  for (const figure of loadable) {
    if (figure.processInstructions === undefined) continue;
    if (minimal === undefined) figure.instructionsNote ??= 'the minimal handler\'s process was not counted, so the import share is unknown';
    else figure.loadInstructions = figure.processInstructions - minimal;
  }
  context.log(`bundles: instructions counted in ${Math.round((performance.now() - started) / 1000)} s`);
};
