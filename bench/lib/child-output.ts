import { spawn } from 'node:child_process';

/** What a finished child process left: its exit code and the tails of what it wrote. */
export interface ChildOutput {
  code: number | null;
  /** The last 200,000 characters of its stdout. */
  stdout: string;
  /** The last 20,000 characters of its stderr. */
  stderr: string;
}

/**
 * Runs `command` with `args` in exactly the environment `env` (stdin ignored) and answers,
 * once the process has closed, its exit code and the tails of its stdout and stderr. Rejects
 * only when the process cannot be started; what a non-zero exit means is the caller's to say.
 */
export const runToClose = (command: string, args: string[], env: Record<string, string>): Promise<ChildOutput> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout = (stdout + chunk.toString()).slice(-200_000)));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-20_000)));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
