/**
 * The five lifecycle events of the portal (spec Events 3; docs/webhooks.md), in the order the
 * documentation lists them. A subscription names a subset; none named means all five.
 */
export const eventTypes = ['line.activated', 'line.suspended', 'usage.updated', 'identity.rotated', 'identity.verified'] as const;

/** One lifecycle event type. */
export type EventType = (typeof eventTypes)[number];

/** True when `value` names a lifecycle event type. */
export const isEventType = (value: unknown): value is EventType => eventTypes.includes(value as EventType);

/**
 * One lifecycle event as delivered: a stable `id` (also the `webhook-id` header, the same on
 * every retry), its `type`, when the change happened (`timestamp`, ISO-8601 UTC with
 * `+00:00`) and its `data`, shaped per type and per subscriber (docs/webhooks.md).
 */
export interface LifecycleEvent {
  id: string;
  type: EventType;
  timestamp: string;
  data: Record<string, unknown>;
}
