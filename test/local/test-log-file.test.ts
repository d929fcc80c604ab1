import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../local/handler-loader';

/**
 * The test runtimes' JSON log lines (issue #22: about 6,000 of them among vitest's output) go
 * to a file per test file, whose path is printed only when a test fails
 * (test/support/test-log-file.ts). Checked with a vitest run of its own over a fixture that
 * writes log lines and passes or fails.
 */
const runFixture = async (fails: boolean): Promise<{ code: number; output: string }> => {
  const vitest = join(repositoryRoot, 'node_modules', '.bin', 'vitest');
  try {
    const { stdout, stderr } = await promisify(execFile)(vitest, ['run', '--config', 'test/local/fixtures/log-file/vitest.config.ts'], {
      cwd: repositoryRoot,
      env: { ...process.env, LOG_FILE_FIXTURE_FAILS: fails ? '1' : '0', NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
};

const announcement = /^Runtime log of this test file: (.+\.log)$/m;

describe('the test runtimes\' log lines', () => {
  it('go to a file, not among vitest\'s output, and its path is printed only when a test fails', async () => {
    const passing = await runFixture(false);
    expect(passing.code).toBe(0);
    expect(passing.output).not.toContain('fixture line');
    expect(passing.output).not.toMatch(announcement);
    expect(passing.output).toContain('a plain line of the fixture');

    const failing = await runFixture(true);
    expect(failing.code).toBe(1);
    expect(failing.output).not.toContain('"fixture line');
    const path = announcement.exec(failing.output)?.[1];
    expect(path && existsSync(path)).toBe(true);
    expect(failing.output.match(new RegExp(announcement.source, 'gm'))).toHaveLength(1);
    expect(readFileSync(path!, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { level: string; message: string }).map(({ level, message }) => [level, message])).toEqual([
      ['INFO', 'fixture line one'],
      ['WARN', 'fixture line two'],
    ]);
  }, 60_000);
});
