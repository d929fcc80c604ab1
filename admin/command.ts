import type { AdminDeps } from '../shared/auth/admin';

/** Where the admin CLI writes and what environment it reads (tests pass their own). */
export interface AdminIo {
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  err: (line: string) => void;
  /** Redraws a progress bar in place (a terminal); absent, progress is written as lines. */
  redraw?: (text: string) => void;
}

/** A mistake in the command line: answered with the usage and exit code 2. */
export class UsageError extends Error {}

/** The options a command may read. */
export interface CommandOptions {
  user?: string;
  customer?: string;
  status?: string;
  dataUsedMb?: string;
  effect?: string;
  queueUrl?: string;
  sqsEndpoint?: string;
  region?: string;
  fromLine?: string;
  limit?: string;
  /** Comma-separated API key scopes (issue-key, set-key-scopes). */
  scopes?: string;
}

/** One admin command: the table, its positional argument, the options and where to write. */
export type AdminCommand = (deps: AdminDeps, argument: string | undefined, options: CommandOptions, io: AdminIo) => Promise<void>;

/** A positive whole number option. */
export const positiveInteger = (value: string | undefined, name: string, fallback: number): number => {
  if (value === undefined) return fallback;
  if (!/^[1-9]\d{0,9}$/.test(value)) throw new UsageError(`${name} must be a whole number from 1`);
  return Number(value);
};
