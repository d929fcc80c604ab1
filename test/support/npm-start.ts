import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryRoot } from '../../local/handler-loader';

/** One `npm start` child process and everything it printed. */
export interface StartedInstance {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The line `npm start` prints once everything is up; group 1 is the base URL. */
export const readyLine = /^Local API ready at (\S+)$/m;

/** The command of the `start` script (without `exec`), so a test can run what `npm start` runs. */
export const startCommand = (): string[] => {
  const scripts = (JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  return scripts.start!.replace(/^exec /, '').split(' ');
};

/**
 * Starts `npm start -- ...args` (or, with `direct`, the start script's own command) in the
 * repository, in a process group of its own so that a test can signal or kill all of it at
 * once, collecting what it prints. Every instance is added to `instances` for cleanup.
 */
export const spawnNpmStart = (
  instances: StartedInstance[],
  env: Record<string, string>,
  args: string[] = [],
  direct = false,
): StartedInstance => {
  const [command, ...commandArgs] = direct ? startCommand() : ['npm', 'start', ...(args.length > 0 ? ['--'] : [])];
  const child = spawn(command!, [...commandArgs, ...args], {
    cwd: repositoryRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const instance: StartedInstance = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
  };
  child.stdout!.on('data', (chunk: Buffer) => (instance.stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (instance.stderr += chunk.toString()));
  instances.push(instance);
  return instance;
};

/** The base URL once the instance printed its ready line; throws with its output when it exits or times out first. */
export const waitForReady = async (instance: StartedInstance, timeoutMs: number): Promise<string> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = readyLine.exec(instance.stdout);
    if (match) return match[1]!;
    if (instance.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`npm start did not get ready.\nstdout:\n${instance.stdout}\nstderr:\n${instance.stderr}`);
};

/** Whether an instance is still running (neither exited nor killed). */
export const isRunning = (instance: StartedInstance): boolean => instance.child.exitCode === null && instance.child.signalCode === null;
