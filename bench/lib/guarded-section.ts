import type { SectionContext } from './context';

/** Runs one section: its value, or undefined when it failed. */
export type GuardedSection = <T>(name: string, run: () => Promise<T>) => Promise<T | undefined>;

/**
 * Runs sections so that one failing does not end the run: each logs its time when done; a
 * failure is logged with its stack and noted in RESULTS.md, and the run goes on.
 */
export const guardedSections = (context: Pick<SectionContext, 'notes' | 'log'>): GuardedSection => async (name, run) => {
  const sectionStarted = performance.now();
  try {
    const value = await run();
    context.log(`${name}: done in ${Math.round((performance.now() - sectionStarted) / 1000)} s`);
    return value;
  } catch (error) {
    context.log(`${name}: FAILED ${(error as Error).stack ?? error}`);
    context.notes.push(`Section ${name} failed: ${(error as Error).message}.`);
    return undefined;
  }
};
