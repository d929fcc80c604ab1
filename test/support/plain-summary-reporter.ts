import type { Reporter, SerializedError, TestModule, TestRunEndReason } from 'vitest/node';

type Counts = { passed: number; failed: number; skipped: number };

const format = (counts: Counts) => `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;

/**
 * Prints one plain closing line, `vitest: N passed, N failed, N skipped`, after vitest's own
 * summary, so that tools that read a run's closing line (CI) see how many tests ran without
 * parsing vitest's coloured output. It counts every project of the run (vitest.config.ts:
 * source and bundled); when more than one ran, a line before it gives each project's counts.
 * A run that failed outside any test gets a suffix, so that the line never reads as a clean
 * run when vitest exits 1: `, N errors outside tests` (unhandled errors), or `, failed
 * outside tests` (e.g. a global setup that threw, such as the bundled project's build).
 */
export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError> = [], reason?: TestRunEndReason): void {
    const total: Counts = { passed: 0, failed: 0, skipped: 0 };
    const byProject = new Map<string, Counts>();
    for (const testModule of testModules) {
      const project = testModule.project.name;
      if (!byProject.has(project)) byProject.set(project, { passed: 0, failed: 0, skipped: 0 });
      const counts = byProject.get(project)!;
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        const key = state === 'passed' ? 'passed' : state === 'failed' ? 'failed' : 'skipped';
        counts[key] += 1;
        total[key] += 1;
      }
    }
    const projects = [...byProject].map(([name, counts]) => `${name} ${format(counts)}`).join('; ');
    const errors =
      unhandledErrors.length > 0
        ? `, ${unhandledErrors.length} error${unhandledErrors.length === 1 ? '' : 's'} outside tests`
        : reason === 'failed' && total.failed === 0
          ? ', failed outside tests'
          : '';
    process.stdout.write(`\n${byProject.size > 1 ? `projects: ${projects}\n` : ''}vitest: ${format(total)}${errors}\n`);
  }
}
