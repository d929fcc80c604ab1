import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../local/handler-loader';
import { isRunning, spawnNpmStart, waitForReady, type StartedInstance } from '../support/npm-start';

const instances: StartedInstance[] = [];

/** The Node version package.json pins (devDependencies.node), which npm installs into node_modules/.bin. */
const pinned = (JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> })
  .devDependencies.node!;

/** The binary node_modules/.bin/node resolves to. */
const projectNode = realpathSync(join(repositoryRoot, 'node_modules/.bin/node'));

/** Pid and command line of every live process in process group `group`. */
const processGroup = (group: number): Array<{ pid: number; args: string }> =>
  execFileSync('ps', ['-eo', 'pid=,pgid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => Number(fields[1]) === group)
    .map((fields) => ({ pid: Number(fields[0]), args: fields.slice(2).join(' ') }));

afterAll(() => {
  for (const instance of instances) {
    if (isRunning(instance)) {
      try {
        process.kill(-instance.child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
});

describe('every local entry point runs on the pinned Node 24', () => {
  it('pins an exact Node 24 release, and package.json engines says 24', () => {
    const manifest = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as { engines: Record<string, string> };
    expect(pinned).toMatch(/^24\.\d+\.\d+$/);
    expect(manifest.engines).toEqual({ node: '24.x' });
  });

  it('runs this test process on it (npm test puts node_modules/.bin first on the PATH)', () => {
    expect(process.version).toBe(`v${pinned}`);
    expect(realpathSync(process.execPath)).toBe(projectNode);
  });

  it('runs a tsx child (npx tsx, as the seed, invoke and admin scripts and the CLI tests do) on it', async () => {
    const { stdout } = await promisify(execFile)('npx', ['tsx', '-e', 'console.log(process.version)'], { cwd: repositoryRoot });
    expect(stdout).toBe(`v${pinned}\n`);
  });

  it('runs the local runtime of `npm start` on it', async () => {
    const instance = spawnNpmStart(instances, { PORT: '0' });
    await waitForReady(instance, 150_000);
    const runtime = processGroup(instance.child.pid!).filter(({ args }) => args === 'node local/start.mjs');
    expect(runtime).toHaveLength(1);
    const executable = readlinkSync(`/proc/${runtime[0]!.pid}/exe`);
    expect(executable).toBe(projectNode);
    expect(execFileSync(executable, ['-p', 'process.version'], { encoding: 'utf8' })).toBe(`v${pinned}\n`);
    instance.child.kill('SIGTERM');
    expect(await instance.exited).toEqual({ code: 0, signal: null });
    expect(instance.stderr).not.toContain('NodeVersionSupportWarning');
  }, 180_000);
});
