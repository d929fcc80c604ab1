import { randomUUID } from 'node:crypto';
import type { ScheduleDefinition } from '../shared/topology/schedules';
import { logger } from '../shared/observability/logger';
import { invokeHandler, loadHandler } from './handler-loader';
import { lambdaContext } from './lambda-context';

/** The scheduled functions of a local runtime, running. */
export interface ScheduleRunner {
  /** Runs every schedule once now (tests, instead of waiting for the timer); resolves with their results. */
  runNow(): Promise<unknown[]>;
  stop(): Promise<void>;
}

/**
 * Runs the scheduled functions (shared/topology/schedules.ts) locally, as their EventBridge rules
 * invoke them deployed: the same handler module with a Scheduled Event, every `intervalMs`
 * (default a minute: locally the runtime is not kept for days, so a shorter period than deployed
 * costs nothing). A run never overlaps the previous one; a failed run is logged and the next one
 * comes.
 */
export const startSchedules = (definitions: readonly ScheduleDefinition[], options: { intervalMs?: number } = {}): ScheduleRunner => {
  let running: Promise<unknown[]> | undefined;
  const runAll = (): Promise<unknown[]> =>
    Promise.all(
      definitions.map(async (definition) => {
        const handler = await loadHandler(definition.handler);
        const event = {
          version: '0',
          id: randomUUID(),
          'detail-type': 'Scheduled Event',
          source: 'aws.events',
          account: '000000000000',
          time: new Date().toISOString(),
          region: 'eu-west-2',
          resources: [`arn:aws:events:eu-west-2:000000000000:rule/${definition.name}`],
          detail: {},
        };
        return invokeHandler(handler, event, lambdaContext({ name: definition.name, timeoutSeconds: definition.timeoutSeconds }), definition.timeoutSeconds * 1000);
      }),
    );
  const runNow = (): Promise<unknown[]> => {
    const previous = running ?? Promise.resolve([]);
    const next = previous.catch(() => []).then(runAll);
    running = next;
    return next;
  };
  const timer = setInterval(() => {
    runNow().catch((error: unknown) => logger.error('scheduled function failed', { error: String(error) }));
  }, options.intervalMs ?? 60_000);
  timer.unref();
  return {
    runNow,
    stop: async () => {
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
};
