/** Renders a run's figures as RESULTS.md (also printed at the end of `npm run bench`). */
import type { BundleFigure } from '../sections/bundles';
import type { LatencyResult } from '../sections/latency';
import type { RateLimiterResult } from '../sections/rate-limiter';
import type { CallProfile, RoundTripFigure } from '../sections/round-trips';
import type { ScaleFigure } from '../sections/scale';
import type { ScaleWritesResult } from '../sections/scale-writes';
import type { ThroughputResult } from '../sections/throughput';
import type { FeedBenchResult, FeedUploadResult } from '../sections/feed';
import type { FeedNewSimsResult } from '../sections/feed-new-sims';
import type { SeedBenchResult } from '../sections/seed';
import { instructionRounds } from '../sections/bundles/load-instructions';
import { coldCallTable } from './cold-call-report';
import type { DoorBuild } from './door-fleet';
import { doorText, type FleetDoor, type FleetOrder } from './scale-fleet';
import type { RunContext } from './machine';
import { kib, millions, round } from './stats';
import type { TargetResult } from './targets';

/** Section 5 at one fleet size, built in bulk or through one door in one order. */
export interface ScaleRun {
  sims: number;
  commit: string;
  date: string;
  /** How its SIMs came in (absent: built in bulk) and in what order (bench/lib/scale-fleet.ts). */
  door?: FleetDoor;
  order?: FleetOrder;
  /** How a door's fleet was built: its time and the list index it left. */
  build?: DoorBuild;
  scale?: ScaleFigure[];
  scaleWrites?: ScaleWritesResult;
}

/** Which fleet a scale run measured: its size, door and order (a run replaces an earlier one of the same). */
const scaleRunKey = (run: ScaleRun): string => `${run.sims}\u0000${run.door ?? 'bulk'}\u0000${run.order ?? ''}`;

/** How a door's fleet came in, in a sentence. */
const doorBuildText = (build: DoorBuild): string =>
  `Its ${build.door === 'feed' ? 'SIMs were created by the operator feed' : 'SIMs were written'} with the stream consumer keeping the list index: sent in ${build.sendSeconds} s, ` +
  `all counted in ${build.seconds} s (${build.simsPerSecond} SIMs a second); the group's list in id order then had ${build.idBuckets.count} buckets ` +
  `(largest ${build.idBuckets.largest} SIMs, median ${build.idBuckets.median}), its count journal ${build.journalItems} items.` +
  (build.indexWriteUnits
    ? ` The consumers wrote ${build.indexWriteUnits.perSim} write units of list index a SIM (${Object.entries(build.indexWriteUnits.parts).map(([part, units]) => `${part} ${units}`).join(', ')}).`
    : '');

/** Everything one run measured (bench/results.json). */
export interface BenchResults {
  context: RunContext;
  /** Whether the machine was busy with other work at the start (see wasLoaded). */
  loadedMachine: boolean;
  durationSeconds: number;
  /** Sections run (all of them unless --only was given). */
  sections: string[];
  bundles?: BundleFigure[];
  roundTrips?: RoundTripFigure[];
  latency?: LatencyResult;
  throughput?: ThroughputResult;
  /** Section 5, one run per fleet size (100,000 in the default run; `--scale 1000000 --merge` adds a million beside it). */
  scaleRuns?: ScaleRun[];
  /** Partial runs merged into these results (`--merge`): when, at which commit, which sections. */
  mergedRuns?: { date: string; commit: string; sections: string[]; loadAverage: number; durationSeconds: number }[];
  rateLimiter?: RateLimiterResult;
  feed?: FeedBenchResult;
  feedNewSims?: FeedNewSimsResult;
  feedUpload?: FeedUploadResult;
  seed?: SeedBenchResult;
  targets: TargetResult[];
  notes: string[];
}

const cell = (value: unknown): string => String(value ?? '—').replace(/\|/g, '\\|').replace(/\n/g, ' ');
const table = (header: string[], rows: unknown[][]): string =>
  [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)].join('\n');
const number = (value: number | undefined, digits = 1): string => (value === undefined || Number.isNaN(value) ? '—' : String(round(value, digits)));

/** Section 7: the feed consumer beside the same write requests sent directly, and its memory. */
const feedSection = (result: FeedBenchResult): string =>
  [
    table(
      ['', 'records', 'seconds', 'records/s', 'write requests / record', 'write units / record', 'read units / record'],
      [
        ['apply-operator-feed', result.records, result.consumer.seconds, result.consumer.recordsPerSecond, result.consumer.writeRequestsPerRecord, result.consumer.writeUnitsPerRecord, result.consumer.readUnitsPerRecord],
        ['the same writes, directly', `${result.direct.requests} requests`, result.direct.seconds, result.direct.recordsPerSecond, result.consumer.writeRequestsPerRecord, '—', '—'],
      ],
    ),
    '',
    `Rate: ${result.ratio} × the direct one. ${result.messages} messages in ${result.invocations} invocations of 5. Requests per record: ${Object.entries(result.consumer.requestsPerRecord).map(([command, count]) => `${command} ${count}`).join(', ')}. ` +
      `Memory over the consumer's run (after a collection at both ends): RSS ${result.memory.rssBeforeMb} → ${result.memory.rssAfterMb} MB (${result.memory.rssGrowthMb} MB), heap ${result.memory.heapGrowthMb} MB.`,
  ].join('\n');

/** Section 8: `npm run seed` of two fleets, and A1's pages of the big one. */
const seedSection = (result: SeedBenchResult): string =>
  [
    table(
      ['SIMs', 'file (MB)', 'checked (s)', 'seconds', 'items', 'items/s', 'peak RSS (MB)'],
      result.runs.map((run) => [run.sims.toLocaleString('en-GB'), run.megabytes, run.checkSeconds, run.seconds, run.items.toLocaleString('en-GB'), run.itemsPerSecond.toLocaleString('en-GB'), run.peakRssMb]),
    ),
    '',
    `Peak RSS grows by ${result.bytesPerSim} bytes a SIM from the small fleet to the big one (the file holds ${round((result.runs.at(-1)!.megabytes * 1048576) / result.runs.at(-1)!.sims, 0)} bytes a SIM).`,
    '',
    table(
      ['page (100 a page)', 'status', 'count', 'first SIM', 'round trips', 'read units', 'first (ms)', 'p50 (ms)', 'p99 (ms)'],
      result.pages.map((page) => [page.case, page.status, page.count, page.firstId, page.roundTrips, page.readUnits, page.ms, page.p50Ms ?? '—', page.p99Ms ?? '—']),
    ),
  ].join('\n');

const statusMark = { PASS: 'PASS', MISS: '**MISS**', SKIP: 'SKIP' } as const;

const targetsTable = (targets: TargetResult[]): string =>
  table(
    ['section', 'target', 'subject', 'wanted', 'measured', 'result'],
    targets.map((target) => [target.section, target.id, target.subject, target.target, target.actual, statusMark[target.status]]),
  );

/** A bundle's load instructions in millions, or `n/a` with the reason of the run (the first bundle's). */
const instructionCells = (figure: BundleFigure, dynamo: BundleFigure | undefined): string[] => {
  if (figure.loadInstructions === undefined) return [figure.instructionsNote ? `n/a (${figure.instructionsNote})` : 'n/a', '—'];
  return [
    String(millions(figure.loadInstructions)),
    dynamo?.loadInstructions ? String(round(figure.loadInstructions / dynamo.loadInstructions, 2)) : '—',
  ];
};

/** A bundle's whole-process instructions in millions: the median, and the lowest and highest process. */
const processInstructionsCell = (figure: BundleFigure): string => {
  const range = figure.processInstructionsRange;
  return range ? `${millions(figure.processInstructions!)} (${millions(range[0])}–${millions(range[1])})` : String(millions(figure.processInstructions!));
};

const bundlesTable = (figures: BundleFigure[]): string => {
  const dynamo = figures.find((figure) => figure.name === 'baseline: DynamoDB-only handler');
  // One reason for all bundles (e.g. valgrind not found) is said once, in the first row.
  const sameReason = figures.every((figure) => figure.error || figure.instructionsNote === figures[0]?.instructionsNote);
  return table(
    [
      'function', 'kind', 'KiB (minified)', '× DynamoDB-only', 'load ms (median of 21)', '× DynamoDB-only',
      `load M instructions (Ir, JIT on, median of ${instructionRounds})`, '× DynamoDB-only', 'whole process ms', 'whole process M instructions (lowest–highest)', 'Stripe inside',
      'beyond the DynamoDB-only bundle (KiB)',
    ],
    figures.map((figure, index) =>
      figure.error
        ? [figure.name, figure.kind, '—', '—', '—', '—', '—', '—', '—', '—', '—', figure.error]
        : [
            figure.name,
            figure.kind === 'route' ? `route (${figure.group})` : figure.kind,
            kib(figure.bytes),
            dynamo && !dynamo.error ? round(figure.bytes / dynamo.bytes, 3) : '—',
            number(figure.loadMs),
            dynamo && !dynamo.error ? round(figure.loadMs / dynamo.loadMs, 2) : '—',
            ...(index > 0 && sameReason && figure.loadInstructions === undefined ? ['n/a', '—'] : instructionCells(figure, dynamo)),
            number(figure.processMs),
            figure.processInstructions === undefined ? 'n/a' : processInstructionsCell(figure),
            figure.containsStripe ? 'yes' : 'no',
            [
              figure.beyondDynamoDb.slice(0, 4).map((entry) => `${entry.name} ${kib(entry.bytes)}`).join(', '),
              ...(figure.sideFiles ?? []).map((side) => `beside it, loaded on use: ${side.file} ${kib(side.bytes)}`),
            ].join('; '),
          ],
    ),
  );
};

const profileCells = (profile: CallProfile | undefined): string[] =>
  profile ? [String(profile.status), String(profile.calls), String(profile.roundTrips), profile.sequence.join(' → ') || '(none)'] : ['—', '—', '—', '—'];

const roundTripsTable = (figures: RoundTripFigure[]): string =>
  table(
    ['route', 'status', 'calls', 'round trips', 'calls in start order', '429: calls', '429: round trips', '429: business calls', 'note'],
    figures.map((figure) => [
      figure.route,
      ...profileCells(figure.success),
      figure.rateLimited ? `${figure.rateLimited.calls} (${figure.rateLimited.status})` : '—',
      figure.rateLimited?.roundTrips ?? '—',
      figure.rateLimited ? figure.rateLimited.businessCalls.join(', ') || 'none' : '—',
      figure.note ?? '',
    ]),
  );

const latencySection = (latency: LatencyResult): string =>
  [
    `Raw GetItem through the handlers' client: p50 ${latency.getItem.p50} ms, p99 ${latency.getItem.p99} ms (${latency.getItem.samples} samples).`,
    '',
    table(
      ['route', 'samples', 'p50 ms', 'p99 ms', 'round trips', 'p50 target ms', 'p50 in DynamoDB calls ms', 'p50 in the handler ms', 'call p50s ms', 'not success path', 'note'],
      latency.routes.map((figure) => [
        figure.route, figure.samples, number(figure.p50, 2), number(figure.p99, 2), figure.roundTrips ?? '—',
        figure.roundTrips !== undefined ? round(figure.roundTrips * latency.getItem.p50 + 1, 2) : '—',
        number(figure.inDynamoDbP50, 2), number(figure.ownP50, 2),
        Object.entries(figure.callP50).map(([name, ms]) => `${name} ${ms}`).join(', '), figure.unexpected, figure.note ?? '',
      ]),
    ),
    '',
    latency.http
      ? `Over HTTP through the local gateway, one request at a time, ${latency.http.getSim.samples} rounds: get-sim p50 ${latency.http.getSim.p50} ms ` +
        `(p99 ${latency.http.getSim.p99}), the one-call baseline (one GetItem, no guard) p50 ${latency.http.oneCall.p50} ms ` +
        `(p99 ${latency.http.oneCall.p99}): **${latency.http.ratio} ×**; answers other than 200: ${latency.http.getSim.unexpected} and ${latency.http.oneCall.unexpected}.`
      : `Over HTTP beside the one-call baseline: not measured (${latency.httpNote ?? 'no figures'}).`,
  ].join('\n');

const throughputSection = (result: ThroughputResult): string =>
  table(
    ['figure', 'value'],
    [
      ['route', `${result.route} over HTTP through the local gateway, ${result.connections} connections, ${result.durationSeconds} s`],
      ['successful requests/s', number(result.requestsPerSecond, 0)],
      ['answers', result.load ? `${result.load.requests} (${Object.entries(result.load.statusCounts).map(([status, count]) => `${count} × ${status}`).join(', ')}), ${result.load.errors} errors` : '—'],
      ['latency p50 / p99 (ms, autocannon)', result.load ? `${result.load.latencyP50} / ${result.load.latencyP99}` : '—'],
      ['DynamoDB calls per request (section 2)', result.callsPerRequest ?? '—'],
      ['DynamoDB operations/s achieved', result.callsPerRequest !== undefined ? number(result.requestsPerSecond * result.callsPerRequest, 0) : '—'],
      [`GetItem ceiling (${result.getItemCeiling.loops} loops, ${result.getItemCeiling.seconds} s)`, `${result.getItemCeiling.operationsPerSecond} ops/s`],
      ['ratio', result.ratio !== undefined ? `${round(result.ratio * 100, 1)}%` : '—'],
      [
        'one-call baseline, same load: successful requests/s (p50 ms); get-sim as a share of it',
        result.oneCall
          ? `${result.oneCall.requestsPerSecond} (${result.oneCall.latencyP50}); ${result.oneCall.ratio} ×${result.oneCall.non2xx > 0 ? `; ${result.oneCall.non2xx} non-2xx` : ''}`
          : '—',
      ],
      ['this process during the load: event-loop utilization, CPU cores', result.serverProcess ? `${result.serverProcess.eventLoopUtilization}, ${result.serverProcess.cpuCores}` : '—'],
      ['this process during the ceiling: event-loop utilization, CPU cores', result.ceilingProcess ? `${result.ceilingProcess.eventLoopUtilization}, ${result.ceilingProcess.cpuCores}` : '—'],
      ['note', result.note ?? ''],
    ],
  );

const scaleTable = (figures: ScaleFigure[]): string =>
  table(
    ['case', 'query', 'count', 'results', 'round trips', 'calls', 'read units', 'p50 ms', 'p99 ms', 'slowest ms', 'samples', 'note'],
    figures.map((figure) => [
      figure.case, `\`${figure.query || '—'}\``, figure.count, figure.results, figure.roundTrips, figure.calls, figure.readUnits,
      number(figure.p50), number(figure.p99), figure.slowest === undefined ? '—' : number(figure.slowest.ms), figure.samples, figure.note ?? '',
    ]),
  );

const scaleWritesSection = (result: ScaleWritesResult): string =>
  [
    `Write units per changed SIM, a tree ${result.levels} levels deep, the SIM owned by a site (every level's two lists: ${result.levels} × 2), writer and stream consumer together:`,
    '',
    table(
      ['change', 'measured', 'write units', 'by part'],
      result.costs.map((cost) => [
        cost.change, cost.batch === 1 ? 'one change alone' : `per change of ${cost.rounds ?? 1} batches of ${cost.batch}, journals folded`, cost.total,
        Object.entries(cost.parts).map(([part, units]) => `${part} ${units}`).join(', '),
      ]),
    ),
    '',
    `L, from a change acknowledged to the list count that shows it (${result.lagMs.samples} status changes): p50 ${result.lagMs.p50} ms, max ${result.lagMs.max} ms.`,
    '',
    ...result.hotKeys.map(
      (run) => `- ${run.run} (${run.changes} changes in ${run.seconds} s here): most writes on one partition key ${run.hottest.map((hot) => `${hot.writes} (\`${hot.key}\`)`).join(', ')}.`,
    ),
  ].join('\n');

const rateLimiterSection = (result: RateLimiterResult): string =>
  [
    ...result.bursts.map(
      (burst) =>
        `- ${burst.concurrent} concurrent requests of one developer, ${burst.position}: **${burst.admitted} admitted**, all answered in ` +
        `${burst.ms} ms (${Object.entries(burst.statusCounts).map(([status, count]) => `${count} × ${status}`).join(', ')}).`,
    ),
    ...(result.arrivals
      ? [
          `- ${result.arrivals.arrivals} arrivals of one caller on a synthetic clock over ${result.arrivals.hours} hours (seed ${result.arrivals.seed}), ` +
            `single requests and concurrent bursts across 10-second marks: **${result.arrivals.violations} trailing-window violations**, ` +
            `${result.arrivals.admitted} admitted, refused ${Object.entries(result.arrivals.refusedByCode).map(([code, count]) => `${count} × ${code}`).join(', ')}; ` +
            `${result.arrivals.callsPerRequest} DynamoDB calls per request, of which ${result.arrivals.writesPerRequest} UpdateItem (failed tries included) ` +
            `(${result.arrivals.ms} ms).`,
        ]
      : []),
  ].join('\n');

/** RESULTS.md for a run. */
export const renderMarkdown = (results: BenchResults): string => {
  const { context } = results;
  const counts = { PASS: 0, MISS: 0, SKIP: 0 };
  for (const target of results.targets) counts[target.status] += 1;
  const lines: string[] = [
    '# Benchmark results',
    '',
    'Written by `npm run bench` (bench/run.ts); what is measured and how to read it: [docs/benchmarks.md](../docs/benchmarks.md).',
    'Targets are reported, not enforced: the run exits 0 when some are missed.',
    '',
    `- **Date**: ${context.date}`,
    `- **Machine**: ${context.machine.cores} cores (${context.machine.cpuModel}), ${context.machine.memoryGiB} GiB memory, ${context.machine.os}`,
    `- **Node**: ${context.machine.node}; **Java** (DynamoDB Local): ${context.machine.java}`,
    `- **Commit measured**: ${context.commit}`,
    `- **Load average** (1 min): ${context.loadAverage.start} at the start, ${context.loadAverage.end ?? '—'} at the end (the end includes the benchmark's own load)`,
    `- **Duration**: ${Math.round(results.durationSeconds)} s; sections: ${results.sections.join(', ')}`,
    '',
  ];
  if (results.loadedMachine) {
    lines.push(
      `> **Taken on a loaded machine**: the load average was ${context.loadAverage.start} on ${context.machine.cores} cores before the benchmark started ` +
        '(other work was running). Times (load, latency, throughput) are pessimistic and noisy; sizes, calls, round trips and items read are not affected.',
      '',
    );
  }
  lines.push(`## Targets: ${counts.PASS} PASS, ${counts.MISS} MISS, ${counts.SKIP} SKIP`, '', targetsTable(results.targets), '');
  const misses = results.targets.filter((target) => target.status !== 'PASS');
  if (misses.length > 0) {
    lines.push(
      '### Misses and skips, with their causes',
      '',
      'Per target: each subject with what it measured and the evidence from this run, then the known causes (bench/causes.ts).',
      '',
    );
    for (const id of [...new Set(misses.map((target) => target.id))]) {
      const ofTarget = misses.filter((target) => target.id === id);
      lines.push(`#### ${id} (${ofTarget[0]!.section})`, '');
      for (const target of ofTarget) {
        lines.push(`- ${target.status} **${target.subject}**: ${target.actual}; wanted ${target.target}.${target.evidence ? ` ${target.evidence}.` : ''}`);
      }
      const causes = [...new Set(ofTarget.flatMap((target) => target.causes ?? []))];
      if (causes.length > 0) lines.push('', ...causes.map((cause) => `Cause: ${cause}`));
      else if (ofTarget.some((target) => target.status === 'MISS')) lines.push('', 'Cause: none recorded yet (see the evidence).');
      lines.push('');
    }
  }
  if (results.bundles) lines.push('## 1. Bundles', '', bundlesTable(results.bundles), '');
  if (results.bundles?.some((figure) => figure.coldCall)) lines.push('### Cold import plus first call', '', coldCallTable(results.bundles), '');
  if (results.roundTrips) lines.push('## 2. DynamoDB calls and round trips per request', '', roundTripsTable(results.roundTrips), '');
  if (results.latency) lines.push('## 3. Latency: Area A warm in process; get-sim over HTTP beside the one-call baseline', '', latencySection(results.latency), '');
  if (results.throughput) lines.push('## 4. Throughput of the SIM read', '', throughputSection(results.throughput), '');
  for (const run of [...(results.scaleRuns ?? [])].sort((left, right) => left.sims - right.sims || scaleRunKey(left).localeCompare(scaleRunKey(right)))) {
    const measured = run.commit === context.commit ? '' : ` (measured ${run.date.slice(0, 10)} at ${run.commit})`;
    const fleet = `${run.sims.toLocaleString('en-GB')} SIMs${run.door ? ` ${doorText(run.door, run.order)}` : ''}`;
    if (run.scale || run.build) lines.push(`## 5. List pages at scale: ${fleet} in one group, 100 per page${measured}`, '');
    if (run.build) lines.push(doorBuildText(run.build), '');
    if (run.scale) lines.push(scaleTable(run.scale), '');
    if (run.scaleWrites) lines.push(`### Keeping the lists exact (${fleet})`, '', scaleWritesSection(run.scaleWrites), '');
  }
  if (results.rateLimiter) lines.push('## 6. Rate limiter under load', '', rateLimiterSection(results.rateLimiter), '');
  if (results.feed) lines.push('## 7. Operator feed: in-order usage records through the consumer', '', feedSection(results.feed), '');
  if (results.feedNewSims) {
    const created = results.feedNewSims;
    lines.push(
      '### New SIMs through the consumer',
      '',
      table(
        ['', 'SIMs', 'seconds', 'SIMs/s', 'write units / SIM'],
        [
          ['apply-operator-feed', created.sims, created.consumer.seconds, created.consumer.simsPerSecond, created.consumer.writeUnitsPerSim],
          ['the same conditional writes, directly (48 SIMs at once)', created.sims, created.direct.seconds, created.direct.simsPerSecond, '—'],
        ],
      ),
      '',
      `Rate: ${created.ratio} × the direct one, in ${created.messages} messages. Requests per SIM: ${Object.entries(created.consumer.requestsPerSim).map(([command, count]) => `${command} ${count}`).join(', ')}.`,
      '',
    );
  }
  if (results.feedUpload) {
    const upload = results.feedUpload;
    lines.push(
      '### A file through `admin feed`',
      '',
      `${upload.lines.toLocaleString('en-GB')} lines (${upload.megabytes} MB) in ${upload.seconds} s (${upload.linesPerSecond.toLocaleString('en-GB')} lines/s) as ${upload.messages} messages; ` +
        `${upload.linesQueued.toLocaleString('en-GB')} lines found on the queue, ${upload.contiguous ? 'numbered without a gap' : 'WITH GAPS OR OVERLAPS'}; peak RSS of the admin feed process ${upload.peakRssMb} MB.`,
      '',
    );
  }
  if (results.seed) lines.push('## 8. Seed: `npm run seed` of a fleet file into a new table', '', seedSection(results.seed), '');
  if (results.mergedRuns?.length) {
    lines.push(
      '## Partial runs merged in',
      '',
      ...results.mergedRuns.map((run) => `- ${run.date} at ${run.commit}: ${run.sections.join(', ')} (${run.durationSeconds} s, load average ${run.loadAverage} at the start)`),
      '',
    );
  }
  if (results.notes.length > 0) lines.push('## Notes', '', ...results.notes.map((note) => `- ${note}`), '');
  return `${lines.join('\n').trimEnd()}\n`;
};

/**
 * A partial run merged into earlier results (`--merge`): the sections it ran replace theirs
 * (their targets too, by section label), a scale run of another fleet (size, door or order) is
 * kept beside the earlier ones, and the run is listed under "Partial runs merged in". The header (date, commit,
 * machine) stays the full run's.
 */
export const mergedResults = (earlier: BenchResults, partial: BenchResults): BenchResults => {
  const replaced = new Set(partial.targets.map((target) => target.section));
  const fleets = new Set((partial.scaleRuns ?? []).map(scaleRunKey));
  const sectionsOf = (results: BenchResults) =>
    Object.fromEntries(
      (['bundles', 'roundTrips', 'latency', 'throughput', 'rateLimiter', 'feed', 'feedNewSims', 'feedUpload', 'seed'] as const)
        .filter((name) => (results as unknown as Record<string, unknown>)[name] !== undefined)
        .map((name) => [name, (results as unknown as Record<string, unknown>)[name]]),
    );
  return {
    ...earlier,
    ...sectionsOf(partial),
    scaleRuns: [...(earlier.scaleRuns ?? []).filter((run) => !fleets.has(scaleRunKey(run))), ...(partial.scaleRuns ?? [])],
    targets: [...earlier.targets.filter((target) => !replaced.has(target.section)), ...partial.targets],
    notes: [...earlier.notes, ...partial.notes.map((note) => `(${partial.sections.join(', ')} at ${partial.context.commit}) ${note}`)],
    mergedRuns: [
      ...(earlier.mergedRuns ?? []),
      { date: partial.context.date, commit: partial.context.commit, sections: partial.sections, loadAverage: partial.context.loadAverage.start, durationSeconds: partial.durationSeconds },
    ],
  };
};
