import { readFileSync } from 'node:fs';

/** Peak resident memory of a process in MB (Linux: VmHWM of /proc/<pid>/status), undefined once it is gone or off Linux. */
export const peakRssOf = (pid: number): number | undefined => {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
};
