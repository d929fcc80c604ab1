/**
 * The text of a fuzz report: a summary, then each failure class (route and kind of problem)
 * with its count, the failing indexes, and for its first failure the problem, the command
 * that regenerates it and one curl that reproduces it.
 */
import type { FuzzFailure, FuzzReport } from './harness';
import { curlCommand } from './curl';

/** Failures grouped by route and problem kind, sorted by kind. */
export const failureClasses = (failures: FuzzFailure[]): Map<string, FuzzFailure[]> => {
  const classes = new Map<string, FuzzFailure[]>();
  for (const failure of failures) {
    const name = `${failure.request.label.replace(/: .*/, '')} → ${failure.problem.kind}`;
    classes.set(name, [...(classes.get(name) ?? []), failure]);
  }
  // Same kind of problem together (a gateway-level answer shows up under every route).
  const kindOf = (name: string) => name.slice(name.indexOf(' → ') + 3);
  return new Map([...classes].sort(([a], [b]) => kindOf(a).localeCompare(kindOf(b))));
};

/** Whether a report passes: every answer met the criteria and the runtime is alive. */
export const passed = (report: FuzzReport): boolean => report.failures.length === 0 && report.deadAtEnd === undefined;

/**
 * The report as lines of text; `reproDir` receives body files the curls refer to. With
 * `ownRuntime` (the harness started the runtime itself, which stops with the run), a report
 * that printed curls ends by saying how to get a runtime to replay them against.
 */
export const formatReport = (report: FuzzReport, baseUrl: string, reproDir: string, options: { ownRuntime?: boolean } = {}): string[] => {
  const statuses = Object.entries(report.statuses)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([status, count]) => `${status === '0' ? 'none' : status}×${count}`)
    .join(' ');
  const lines = [
    `fuzz seed ${report.seed}: ${report.sent} of ${report.planned} requests sent in ${(report.durationMs / 1000).toFixed(1)} s; answers ${statuses}`,
    report.deadAtEnd ? `RUNTIME NOT ALIVE at the end: ${report.deadAtEnd}` : 'runtime alive at the end',
    report.failures.length === 0 ? 'no failing answers' : `${report.failures.length} failing answers in ${failureClasses(report.failures).size} classes:`,
  ];
  for (const [name, failures] of failureClasses(report.failures)) {
    const first = failures[0]!;
    const indexes = failures.map((failure) => failure.request.index);
    lines.push(
      '',
      `✗ ${name}: ${failures.length}× (indexes ${indexes.slice(0, 20).join(', ')}${indexes.length > 20 ? ', ...' : ''})`,
      `  first: seed ${report.seed} index ${first.request.index}, ${first.request.label}`,
      `  answer: ${first.problem.detail}`,
      `  regenerate: npm run fuzz -- ${report.regenerate ? `${report.regenerate} ` : ''}--seed ${report.seed} --index ${first.request.index}`,
    );
    if (first.request.timeBound) {
      const until = new Date(Math.floor(first.generatedAt / 1000) * 1000 + 300_000).toISOString();
      lines.push(`  note: its Stripe-Signature is time-bound: valid only until ${until} (300 s); regenerate for a fresh one`);
    }
    lines.push(`  curl: ${curlCommand(first.request, baseUrl, report.seed, reproDir)}`);
  }
  if (options.ownRuntime && report.failures.length > 0) {
    lines.push('', `The curls need a runtime with the fuzz seed: npm run fuzz -- --serve, then replace ${baseUrl} with its URL.`);
  }
  return lines;
};
