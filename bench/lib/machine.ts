import { spawnSync } from 'node:child_process';
import { cpus, loadavg, totalmem, type as osType, release, arch } from 'node:os';

/** The machine and code a run measured. */
export interface RunContext {
  /** ISO-8601 time the run started. */
  date: string;
  machine: {
    cores: number;
    cpuModel: string;
    memoryGiB: number;
    os: string;
    node: string;
    java: string;
  };
  /** `git rev-parse --short HEAD`, plus ` + uncommitted changes` when the tree is dirty. */
  commit: string;
  /** 1-minute load average at the start and the end of the run. */
  loadAverage: { start: number; end?: number };
}

const run = (command: string, args: string[]): { status: number | null; stdout: string; stderr: string } => {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  return { status: result.error ? null : result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
};

/** Files the benchmark itself writes: they do not make the measured tree "dirty". */
const ownOutputs = ['bench/RESULTS.md', 'bench/results.json'];

/**
 * The commit measured: the short HEAD hash, with ` + uncommitted changes` when anything but
 * the benchmark's own output files differs from it (tracked changes or untracked files).
 */
export const measuredCommit = (): string => {
  const head = run('git', ['rev-parse', '--short', 'HEAD']);
  if (head.status !== 0) return 'unknown (not a git checkout)';
  const status = run('git', ['status', '--porcelain', '--', '.', ...ownOutputs.map((path) => `:!${path}`)]);
  const dirty = status.status !== 0 || status.stdout.trim() !== '';
  return `${head.stdout.trim()}${dirty ? ' + uncommitted changes' : ''}`;
};

const javaVersion = (): string => {
  const probe = run('java', ['-version']);
  const line = (probe.stderr || probe.stdout).split('\n')[0]?.trim();
  return probe.status === 0 && line ? line : 'not found';
};

/** Describes this machine and the code under measurement, at the start of a run. */
export const runContext = (): RunContext => ({
  date: new Date().toISOString(),
  machine: {
    cores: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    os: `${osType()} ${release()} ${arch()}`,
    node: process.version,
    java: javaVersion(),
  },
  commit: measuredCommit(),
  loadAverage: { start: Math.round(loadavg()[0]! * 100) / 100 },
});

/** The current 1-minute load average. */
export const currentLoad = (): number => Math.round(loadavg()[0]! * 100) / 100;

/**
 * Whether the machine was busy with other work when the run started: a 1-minute load
 * average above half the cores before the benchmark started anything (the end figure
 * includes the benchmark's own load, so it is reported but not judged).
 */
export const wasLoaded = (context: RunContext): boolean => context.loadAverage.start > context.machine.cores * 0.5;
