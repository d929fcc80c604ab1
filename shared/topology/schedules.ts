/**
 * The functions the service runs on a schedule, as plain data read by the CDK stack (an
 * EventBridge rule per schedule) and the local runtime (a timer), beside the route, queue and
 * stream tables.
 */
import type { RouteAccess } from './routes';

/** One function run on a fixed rate. */
export interface ScheduleDefinition {
  /** Function name; also the handler file's base name. */
  name: string;
  /** Handler module relative to the repository root; it exports `handler`. */
  handler: string;
  /** How often it runs deployed (EventBridge `rate(N minutes)`). */
  everyMinutes: number;
  timeoutSeconds: number;
  access: RouteAccess;
}

/** The scheduled functions of the service. */
export const schedules: ScheduleDefinition[] = [
  {
    // The 24-hour timeout of SIM actions (issue #33; docs/sim-actions.md, "Timeout"): every
    // pending action older than 24 hours fails as operator_timeout. Every 10 minutes, so an
    // action fails at most 10 minutes (and the sweep's run) after its 24 hours.
    name: 'expire-sim-actions',
    handler: 'functions/expire-sim-actions.ts',
    everyMinutes: 10,
    timeoutSeconds: 60,
    access: { table: 'readWrite' },
  },
];
