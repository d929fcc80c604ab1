import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { peakRssOf } from '../../local/peak-memory';

/** What runMeasuredChild saw: the exit code, stdout and stderr together, the wall time and the peak resident memory. */
export interface MeasuredChild {
  code: number | null;
  output: string;
  seconds: number;
  peakRssMb: number;
}

/**
 * A TypeScript entry point of the repository (`admin/cli.ts`, `local/seed-cli.ts`) run as an
 * operator runs it, in a process of its own under this Node with tsx and no AWS credentials of
 * the machine, its peak memory sampled every `sampleMs`; `onStderrLine` sees each line of its
 * stderr as it comes (progress).
 */
export const runMeasuredChild = async (
  root: string,
  args: string[],
  options: { sampleMs?: number; onStderrLine?: (line: string) => void } = {},
): Promise<MeasuredChild> => {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: root,
    env: { ...process.env, AWS_ACCESS_KEY_ID: '', AWS_PROFILE: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, peakRssOf(child.pid!) ?? 0)), options.sampleMs ?? 100);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (options.onStderrLine) for (const line of chunk.toString().split('\n')) options.onStderrLine(line);
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  clearInterval(sampler);
  return { code, output, seconds: (performance.now() - started) / 1000, peakRssMb: peak };
};
