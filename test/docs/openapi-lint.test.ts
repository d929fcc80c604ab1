import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * `@redocly/cli lint` of docs/openapi.json with the recommended rules (redocly.yaml lists the
 * one rule turned off, with its reason): no error and no warning. Offline and under a second;
 * telemetry and the update check are off.
 */
describe('redocly lint docs/openapi.json', () => {
  it('finds no error and no warning with the recommended rules', async () => {
    const result = await promisify(execFile)(`${root}node_modules/.bin/redocly`, ['lint', 'docs/openapi.json', '--format=json'], {
      cwd: root,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    }).catch((error: { stdout: string }) => error);
    const report = JSON.parse(result.stdout.slice(result.stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string }[];
    };
    expect(report.problems.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);
});
