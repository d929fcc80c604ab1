/**
 * Section 6, the rate limiter under load: 300 concurrent requests of one developer (the SIM
 * read, over HTTP through the local gateway) must admit exactly 10 (the burst limit); reports
 * the admitted count, the other answers and the time until all were answered. The burst is
 * sent at the start of a 10-second window, so that it cannot straddle two windows.
 */
import { routes } from '../../infra/routes';
import type { BenchCredential, BenchData } from '../lib/bench-seed';
import type { SectionContext } from '../lib/context';
import { round } from '../lib/stats';

/** The section's figures. */
export interface RateLimiterResult {
  concurrent: number;
  admitted: number;
  statusCounts: Record<string, number>;
  /** From sending the first request to the last answer. */
  ms: number;
  /** Whether the burst stayed inside one 10-second window. */
  oneWindow: boolean;
  note?: string;
}

const windowMs = 10_000;

/** Runs section 6 and records its target. */
export const runRateLimiter = async (
  context: SectionContext,
  input: { baseUrl: string; data: BenchData; credential: BenchCredential; concurrent: number },
): Promise<RateLimiterResult | undefined> => {
  const { baseUrl, data, credential, concurrent } = input;
  if (!routes.some((route) => route.name === 'get-sim')) {
    context.targets.skip({ section: '6 rate limiter', id: 'rate-limit-burst', subject: 'get-sim', target: 'exactly 10 admitted', reason: 'the route table has no get-sim route yet' });
    return undefined;
  }
  context.log(`rate limiter: ${concurrent} concurrent requests of one developer`);
  const intoWindow = Date.now() % windowMs;
  if (intoWindow > 5_000) await new Promise((resolve) => setTimeout(resolve, windowMs - intoWindow + 100));
  const url = `${baseUrl}/developer/api/sims/${data.bench.simIds[2]}/`;
  const headers = { Authorization: `Bearer ${credential.bearerToken}`, 'X-Customer-API-Key': credential.apiKey };
  const startedAt = Date.now();
  const started = performance.now();
  const statuses = await Promise.all(
    Array.from({ length: concurrent }, async () => {
      try {
        const response = await fetch(url, { headers });
        await response.arrayBuffer();
        return String(response.status);
      } catch (error) {
        return `error: ${(error as Error).message}`;
      }
    }),
  );
  const ms = round(performance.now() - started, 1);
  const oneWindow = Math.floor(startedAt / windowMs) === Math.floor(Date.now() / windowMs);
  const statusCounts: Record<string, number> = {};
  for (const status of statuses) statusCounts[status] = (statusCounts[status] ?? 0) + 1;
  const admitted = statusCounts['200'] ?? 0;
  const result: RateLimiterResult = { concurrent, admitted, statusCounts, ms, oneWindow };
  if (!oneWindow) result.note = 'the burst straddled two 10-second windows (up to 20 may be admitted then)';
  context.targets.check({
    section: '6 rate limiter', id: 'rate-limit-burst', subject: 'get-sim', target: `exactly 10 of ${concurrent} concurrent admitted`,
    actual: `${admitted} admitted in ${ms} ms (${Object.entries(statusCounts).map(([status, count]) => `${count} × ${status}`).join(', ')})`,
    met: admitted === 10, evidence: result.note ?? '',
  });
  return result;
};
