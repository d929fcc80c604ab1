import type { Context, ScheduledEvent } from 'aws-lambda';
import type { FunctionConfig } from '../config/function-config';
import { documentClient } from '../db/client';
import { withInvocation } from '../observability/invocation';
import { logger } from '../observability/logger';
import { expireActions } from '../sim-actions/expire';
import type { ActionTable } from '../sim-actions/store';

/** What the timeout's sweep needs: the table and a clock. */
export interface ExpireSimActionsDeps extends ActionTable {
  now: () => number;
}

/** The deps of the expire-sim-actions function, from its configuration (read once at init). */
export const expireSimActionsDeps = (config: FunctionConfig<'expire-sim-actions'>): ExpireSimActionsDeps => ({
  db: documentClient(config),
  tableName: config.tableName,
  now: Date.now,
});

/**
 * The scheduled sweep of SIM actions' 24-hour timeout (issue #33; shared/topology/schedules.ts):
 * invoked by an EventBridge rule deployed, by a timer locally; its event carries nothing it reads.
 */
export const expireSimActionsHandler = (deps: ExpireSimActionsDeps) => (_event: ScheduledEvent, context: Context): Promise<{ expired: number }> =>
  withInvocation(context, { schedule: 'expire-sim-actions' }, async () => {
    const expired = await expireActions(deps, deps.now());
    if (expired > 0) logger.info('sim actions expired', { expired });
    return { expired };
  });
