import type { LifecycleEvent } from './event-schemas';

/**
 * The lifecycle events (docs/webhooks.md), in the order the documentation lists them: the five
 * of the portal (spec Events 3), `sms.received`, a message a SIM sent (issue #21), and the four
 * of SIM actions (issue #33): `line.resumed` and `line.cancelled` beside the other status
 * changes, `action.completed` and `action.failed`. A subscription names a subset; none named
 * means `defaultEventTypes`.
 */
export const eventTypes = [
  'line.activated',
  'line.suspended',
  'line.resumed',
  'line.cancelled',
  'usage.updated',
  'identity.rotated',
  'identity.verified',
  'action.completed',
  'action.failed',
  'sms.received',
] as const;

/**
 * The events of a subscription that names none: every type but `sms.received`, which carries
 * message texts and is chosen explicitly (issue #21). A subscription keeps the events it was
 * made with: one made before issue #33 with the default set has the portal's five.
 */
export const defaultEventTypes: readonly (typeof eventTypes)[number][] = eventTypes.filter((type) => type !== 'sms.received');

/** One lifecycle event type. */
export type EventType = (typeof eventTypes)[number];

/** True when `value` names a lifecycle event type. */
export const isEventType = (value: unknown): value is EventType => eventTypes.includes(value as EventType);

/**
 * One lifecycle event as delivered: a stable `id` (also the `webhook-id` header, the same on
 * every retry), its `type`, when the change happened (`timestamp`, ISO-8601 UTC with
 * `+00:00`) and its `data`, shaped per type (docs/webhooks.md). The type comes from the
 * valibot schemas of ./event-schemas.ts (imported as a type only: the bundles do not carry them).
 */
export type { LifecycleEvent, LifecycleEventData } from './event-schemas';

type Assert<Condition extends true> = Condition;
type SameTypes = [EventType] extends [LifecycleEvent['type']] ? ([LifecycleEvent['type']] extends [EventType] ? true : false) : false;
/** Compile-time check that the event schemas name exactly the event types (fails `npm run typecheck` otherwise; tsc checks it though nothing uses it). */
type EventSchemasMatchTypes = Assert<SameTypes>;
