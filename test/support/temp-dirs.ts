import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * A maker of fresh temporary folders (`<tmp>/<prefix>XXXXXX`) for one test file, all removed
 * after the file's tests. Call it at the top level of the file (it registers an afterAll).
 */
export const tempDirs = (): ((prefix: string) => string) => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return (prefix) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
};
