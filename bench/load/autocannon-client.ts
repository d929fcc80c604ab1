/**
 * The load generator of section 4, run in its own process (`node --import tsx`) so that it
 * does not share an event loop with the gateway it loads. Reads its settings from the JSON
 * file named on the command line, runs autocannon for a warm-up and then for the measured
 * duration, each request with the next developer's credentials (round robin, so that no
 * developer meets the burst limit), and prints the measured run's figures as one JSON line.
 */
import { readFileSync } from 'node:fs';
import autocannon, { type AutocannonResult } from 'autocannon';

/** The settings the parent writes. */
export interface LoadSettings {
  url: string;
  path: string;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  credentials: { bearerToken: string; apiKey: string }[];
}

/** What the child prints. */
export interface LoadFigures {
  durationSeconds: number;
  requests: number;
  ok: number;
  non2xx: number;
  statusCounts: Record<string, number>;
  errors: number;
  timeouts: number;
  latencyP50: number;
  latencyP99: number;
  /** The most requests any one developer sent in the measured run. */
  maxPerDeveloper: number;
}

const settings = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as LoadSettings;
let next = 0;
const uses = new Map<number, number>();

const run = (seconds: number): Promise<AutocannonResult> =>
  new Promise((resolve, reject) => {
    autocannon(
      {
        url: settings.url,
        connections: settings.connections,
        duration: seconds,
        requests: [
          {
            method: 'GET',
            path: settings.path,
            setupRequest: (request) => {
              const index = next % settings.credentials.length;
              next += 1;
              uses.set(index, (uses.get(index) ?? 0) + 1);
              const credential = settings.credentials[index]!;
              return {
                ...request,
                headers: { ...request.headers, Authorization: `Bearer ${credential.bearerToken}`, 'X-Customer-API-Key': credential.apiKey },
              };
            },
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });

if (settings.warmupSeconds > 0) await run(settings.warmupSeconds);
uses.clear();
const result = await run(settings.durationSeconds);
const statusCounts = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => [status, count]));
const figures: LoadFigures = {
  durationSeconds: result.duration,
  requests: result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'],
  ok: result['2xx'],
  non2xx: result.non2xx,
  statusCounts,
  errors: result.errors,
  timeouts: result.timeouts,
  latencyP50: result.latency.p50,
  latencyP99: result.latency.p99,
  maxPerDeveloper: Math.max(0, ...uses.values()),
};
process.stdout.write(`${JSON.stringify(figures)}\n`);
