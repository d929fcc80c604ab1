import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { withCurrentRouteTable } from '../../scripts/readme-routes';

const readmePath = fileURLToPath(new URL('../../README.md', import.meta.url));

describe('README', () => {
  it('shows the route table exactly as shared/topology/routes.ts declares it (run npm run docs)', () => {
    const readme = readFileSync(readmePath, 'utf8');
    expect(readme).toBe(withCurrentRouteTable(readme));
  });

  it('npm run docs says when nothing changed and leaves the file alone', async () => {
    const before = statSync(readmePath).mtimeMs;
    const script = fileURLToPath(new URL('../../scripts/readme-routes.ts', import.meta.url));
    const { stdout } = await promisify(execFile)('npx', ['tsx', script], { cwd: fileURLToPath(new URL('../..', import.meta.url)) });
    expect(stdout).toBe('README.md route table already current: nothing changed\n');
    expect(statSync(readmePath).mtimeMs).toBe(before);
  }, 60_000);
});
