/**
 * Part of section 3: the SIM read (get-sim) over HTTP through the local gateway, beside the
 * one-call baseline (bench/baselines/one-call-handler.ts: one GetItem, nothing else) served by
 * the same gateway in the same process against the same DynamoDB Local. Requests go one at a
 * time over keep-alive connections (fetch), one of each kind per round, so that a busy moment
 * hits both alike; the ratio of the p50s is what issue #11's "get-sim p50 ≤ 2 × a one-call
 * baseline" is judged on.
 */
import { oneCallRoute } from '../baselines/one-call-handler';
import type { CredentialPool } from '../lib/requests';
import { median, percentile, round } from '../lib/stats';

/** p50 / p99 of one kind of request, and the answers that were not 200. */
export interface HttpLatencyFigure {
  samples: number;
  p50: number;
  p99: number;
  unexpected: number;
}

/** get-sim and the one-call baseline over HTTP, measured in the same rounds. */
export interface HttpLatencyResult {
  getSim: HttpLatencyFigure;
  oneCall: HttpLatencyFigure;
  /** getSim.p50 / oneCall.p50. */
  ratio: number;
}

/** The path of the baseline's route for a SIM (its `{sim}` is the SIM id). */
export const oneCallPath = (simId: number): string => oneCallRoute.path.replace('{sim}', String(simId));

const timed = async (url: string, headers: Record<string, string>): Promise<{ ms: number; status: number }> => {
  const started = performance.now();
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
};

const figureOf = (samples: { ms: number; status: number }[]): HttpLatencyFigure => {
  const times = samples.map((sample) => sample.ms);
  return {
    samples: samples.length,
    p50: round(median(times), 2),
    p99: round(percentile(times, 99), 2),
    unexpected: samples.filter((sample) => sample.status !== 200).length,
  };
};

/** Measures get-sim and the one-call baseline over HTTP, `samples` rounds after `warmup`. */
export const measureAgainstOneCall = async (input: {
  baseUrl: string; pool: CredentialPool; simId: number; samples: number; warmup: number;
}): Promise<HttpLatencyResult> => {
  const credential = input.pool.budgeted();
  const getSim: { ms: number; status: number }[] = [];
  const oneCall: { ms: number; status: number }[] = [];
  for (let round = 0; round < input.warmup + input.samples; round += 1) {
    const baseline = await timed(`${input.baseUrl}${oneCallPath(input.simId)}`, {});
    const { bearerToken, apiKey } = credential(false);
    const read = await timed(`${input.baseUrl}/developer/api/sims/${input.simId}/`, {
      Authorization: `Bearer ${bearerToken}`,
      'X-Customer-API-Key': apiKey,
    });
    if (round < input.warmup) continue;
    oneCall.push(baseline);
    getSim.push(read);
  }
  const result = { getSim: figureOf(getSim), oneCall: figureOf(oneCall) };
  return { ...result, ratio: round(result.getSim.p50 / result.oneCall.p50, 2) };
};
