import { readFileSync, writeFileSync } from 'node:fs';
import { benchLog } from './bench-log';
import { mergedResults, renderMarkdown, type BenchResults } from './report';
import { causesFor } from './targets';

const resultsJson = new URL('../results.json', import.meta.url);
const resultsMarkdown = new URL('../RESULTS.md', import.meta.url);

/**
 * Prints a finished run's report and its targets (PASS / MISS) on stdout and, when asked,
 * writes bench/results.json and bench/RESULTS.md: the run as it is, or with `merge` its
 * sections merged into the files' (lib/report.ts mergedResults).
 */
export const reportRun = (complete: BenchResults, files: { write: boolean; merge: boolean }): void => {
  const markdown = renderMarkdown(complete);
  process.stdout.write(`\n${markdown}\n`);
  for (const target of complete.targets) {
    process.stdout.write(`${target.status.padEnd(4)}  ${target.section.padEnd(15)} ${target.id} — ${target.subject}: ${target.actual} (wanted ${target.target})\n`);
  }
  if (files.write) {
    const written = files.merge ? mergedResults(JSON.parse(readFileSync(resultsJson, 'utf8')) as BenchResults, complete) : complete;
    writeFileSync(resultsJson, `${JSON.stringify(written, null, 2)}\n`);
    writeFileSync(resultsMarkdown, files.merge ? renderMarkdown(written) : markdown);
    benchLog(`wrote bench/results.json and bench/RESULTS.md (${Math.round(complete.durationSeconds)} s)`);
  } else {
    benchLog('partial run (--only): bench/RESULTS.md and bench/results.json left as they were (add --write to replace them)');
  }
};

/** --render: RESULTS.md again from results.json, with today's known causes for the missed targets. */
export const renderResultFiles = (): void => {
  const results = JSON.parse(readFileSync(resultsJson, 'utf8')) as BenchResults;
  for (const target of results.targets) {
    delete target.causes;
    if (target.status !== 'MISS') continue;
    const causes = causesFor(target.id, target.subject);
    if (causes.length > 0) target.causes = causes;
  }
  const markdown = renderMarkdown(results);
  writeFileSync(resultsJson, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(resultsMarkdown, markdown);
  process.stdout.write(markdown);
  benchLog('rewrote bench/RESULTS.md and the causes in bench/results.json from the recorded figures');
};
