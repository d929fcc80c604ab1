/**
 * Runs a fuzz campaign against a running local API: generates requests 0..N-1 of a seed
 * (generate.ts), sends them a few at a time over raw sockets (wire.ts), judges every answer
 * (verdict.ts), then checks that the runtime still answers. Failures keep the request, so
 * the report can print its seed, index and a curl that reproduces it (curl.ts).
 */
import type { FuzzContext } from './context';
import type { FuzzRequest } from './fuzz-request';
import { generateRequest } from './generate';
import { verdict, type Problem } from './verdict';
import { sendRaw, type WireOutcome } from './wire';

/** Options of runFuzz. */
export interface FuzzOptions {
  baseUrl: string;
  context: FuzzContext;
  /** The run's seed (unsigned 32-bit). */
  seed: number;
  /** Number of requests (indexes 0..requests-1), unless `indexes` is given. */
  requests: number;
  /** Only these indexes (to reproduce one request). */
  indexes?: number[];
  /** Requests in flight at once (default 4). */
  concurrency?: number;
  /** Per-request limit (default 40 s: above API Gateway's 29 s integration timeout). */
  timeoutMs?: number;
  /** Stop starting new requests after this many ms (the report says how many were sent). */
  budgetMs?: number;
  /** Called after each answer (progress output). */
  onAnswer?: (request: FuzzRequest, outcome: WireOutcome, problem: Problem | undefined) => void;
  /** Request `index` (default: the seeded generator, generate.ts; `--names`: the hostile-name sweep, names.ts). */
  generate?: (index: number, nowMs: number) => FuzzRequest;
  /** How to regenerate a request alone, for the report (default `--seed S --index K`). */
  regenerate?: string;
}

/** One request that failed the criteria. */
export interface FuzzFailure {
  request: FuzzRequest;
  problem: Problem;
  /** When the request was generated (a Stripe signature is valid for 300 s after it). */
  generatedAt: number;
}

/** What a run found. */
export interface FuzzReport {
  seed: number;
  planned: number;
  sent: number;
  failures: FuzzFailure[];
  /** Answers per status (0: no answer). */
  statuses: Record<number, number>;
  /** Why the runtime is not alive at the end, or undefined when it is. */
  deadAtEnd?: string;
  durationMs: number;
  /** The options that regenerate a request with `--index` (e.g. `--names`), beside the seed. */
  regenerate?: string;
}

/**
 * The liveness check after a run: with a reserved developer token, GET a SIM list must be a
 * 200 JSON answer (the runtime, DynamoDB Local and the handlers all work); without one, an
 * unknown path must be a JSON 404.
 */
export const checkAlive = async (baseUrl: string, context: FuzzContext): Promise<string | undefined> => {
  const request: FuzzRequest = context.livenessToken
    ? { index: -1, label: 'liveness', method: 'GET', target: '/developer/api/sims/?page_size=1', headers: [['Authorization', `Bearer ${context.livenessToken}`], ['X-Customer-API-Key', context.apiKey]] }
    : { index: -1, label: 'liveness', method: 'GET', target: '/api/v1/fuzz-liveness-check', headers: [] };
  const expected = context.livenessToken ? 200 : 404;
  const outcome = await sendRaw(baseUrl, request, 15_000);
  const problem = verdict(request, outcome);
  if (problem) return `${request.method} ${request.target}: ${problem.detail}`;
  if (outcome.answer!.status !== expected) return `${request.method} ${request.target}: ${outcome.answer!.status}, expected ${expected}`;
  return undefined;
};

/** Runs the campaign and returns the report (it never throws for a failing answer). */
export const runFuzz = async (options: FuzzOptions): Promise<FuzzReport> => {
  const started = Date.now();
  const indexes = options.indexes ?? Array.from({ length: options.requests }, (_, index) => index);
  const failures: FuzzFailure[] = [];
  const statuses: Record<number, number> = {};
  let next = 0;
  let sent = 0;
  const worker = async () => {
    while (next < indexes.length) {
      if (options.budgetMs !== undefined && Date.now() - started > options.budgetMs) return;
      const index = indexes[next++]!;
      const generatedAt = Date.now();
      const request = options.generate ? options.generate(index, generatedAt) : generateRequest(options.context, options.seed, index, generatedAt);
      const outcome = await sendRaw(options.baseUrl, request, options.timeoutMs ?? 40_000);
      sent += 1;
      const status = outcome.answer?.status ?? 0;
      statuses[status] = (statuses[status] ?? 0) + 1;
      const problem = verdict(request, outcome);
      if (problem) failures.push({ request, problem, generatedAt });
      options.onAnswer?.(request, outcome, problem);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  failures.sort((a, b) => a.request.index - b.request.index);
  return {
    seed: options.seed,
    planned: indexes.length,
    sent,
    failures,
    statuses,
    deadAtEnd: await checkAlive(options.baseUrl, options.context),
    durationMs: Date.now() - started,
    ...(options.regenerate ? { regenerate: options.regenerate } : {}),
  };
};
