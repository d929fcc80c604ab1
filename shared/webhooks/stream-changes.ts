import { createHash } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { ApiKeyItem, BearerTokenItem, SimActionItem, SimItem, SmsInboundItem } from '../db/items';
import { actionView } from '../sim-actions/action-view';
import { customerPathOf, simImageOf, textOf } from '../db/stream-images';
import type { TableStreamRecord } from '../db/stream-record';
import type { GroupDirectory } from '../groups/directory';
import { isoWithOffset, simObject } from '../sims/sim-object';
import type { EventType, LifecycleEvent, LifecycleEventData } from './event-types';

/**
 * One lifecycle event read from a change of the table, before it is addressed: whose it is
 * (the owning customer, and its path when the item carries it) and its data as seen by a
 * subscriber of a given customer (a SIM's `group` is relative to the subscriber). One variant
 * per event type, so `dataFor` gives that type's `data` (./event-schemas.ts).
 */
export type LifecycleChange = {
  [Type in EventType]: {
    id: string;
    type: Type;
    timestamp: string;
    /** The customer the event belongs to. */
    customerId: string;
    /** That customer's path, top-level group first, when the changed item carries it (SIMs, API keys). */
    customerPath?: string[];
    /** The event's `data` for a subscriber of `subscriberCustomerId`. */
    dataFor: (subscriberCustomerId: string) => LifecycleEventData<Type>;
  };
}[EventType];

/**
 * The event for a subscriber: id, type, timestamp and data. (TypeScript does not relate the
 * `type` and `dataFor` of one union member across fields, hence the one assertion; the
 * variants of LifecycleChange pair them.)
 */
export const eventFor = (change: LifecycleChange, subscriberCustomerId: string): LifecycleEvent =>
  ({
    id: change.id,
    type: change.type,
    timestamp: change.timestamp,
    data: change.dataFor(subscriberCustomerId),
  }) as LifecycleEvent;

/**
 * The stable id of the event of one type made by one stream record: the record's eventID is
 * unique per change and the same when a failed batch is read again, so a re-read makes the
 * same ids (and the receivers' de-duplication by webhook-id holds).
 */
const eventId = (record: TableStreamRecord, type: EventType): string =>
  `evt_${createHash('sha256').update(`${record.eventID ?? ''}#${type}`).digest('hex').slice(0, 32)}`;

const image = (value: unknown): Record<string, unknown> | undefined =>
  value ? unmarshall(value as Record<string, AttributeValue>) : undefined;

/** Fields whose change is a change of month-to-date usage or cost (usage.updated). */
const usageFields = ['data_used_mb', 'data_overage_mb', 'base_cost', 'overage_cost'] as const;

const simChanges = (record: TableStreamRecord, timestamp: string, sim: SimItem, old: SimItem | undefined, directory?: GroupDirectory): LifecycleChange[] => {
  const changes: LifecycleChange[] = [];
  const base = { timestamp, customerId: sim.customer_id, customerPath: [...sim.customer_path] };
  // A Map: a status read from the table is looked up as data (an odd item's `constructor` is no event).
  const statusEvents = new Map<string, 'line.activated' | 'line.suspended' | 'line.cancelled'>([
    ['active', 'line.activated'],
    ['suspended', 'line.suspended'],
    ['cancelled', 'line.cancelled'],
  ]);
  const statusType = statusEvents.get(sim.status);
  if (statusType && old?.status !== sim.status) {
    changes.push({ ...base, id: eventId(record, statusType), type: statusType, dataFor: (subscriber) => ({ ...simObject(sim, subscriber, directory) }) });
  }
  // A suspended SIM made active again (issue #33): line.resumed too, beside line.activated as before,
  // so a subscriber of line.activated keeps every activation and one of line.resumed gets the resumes.
  if (sim.status === 'active' && old?.status === 'suspended') {
    changes.push({ ...base, id: eventId(record, 'line.resumed'), type: 'line.resumed', dataFor: (subscriber) => ({ ...simObject(sim, subscriber, directory) }) });
  }
  if (old && usageFields.some((field) => String(old[field]) !== String(sim[field]))) {
    changes.push({
      ...base,
      id: eventId(record, 'usage.updated'),
      type: 'usage.updated',
      dataFor: (subscriber) => {
        const shown = simObject(sim, subscriber, directory);
        return { iccid: shown.iccid, usage: shown.usage, cost: shown.cost };
      },
    });
  }
  return changes;
};

type Credential = (BearerTokenItem | ApiKeyItem) & Record<string, unknown>;

const credentialChanges = (record: TableStreamRecord, timestamp: string, item: Credential, old: Credential | undefined): LifecycleChange[] => {
  const token = item.type === 'bearer_token';
  const owner = textOf(item, token ? 'user_customer_id' : 'customer_id');
  const base = {
    timestamp,
    customerId: owner,
    ...(token ? {} : { customerPath: customerPathOf(item, 'customer_path') }),
  };
  const data = <Action extends 'issued' | 'revoked' | 'verified'>(action: Action) => ({
    kind: token ? ('bearer_token' as const) : ('api_key' as const),
    prefix: item.prefix,
    user: token ? (item as BearerTokenItem).user_id : null,
    action,
  });
  const changes: LifecycleChange[] = [];
  const rotated = (action: 'issued' | 'revoked') =>
    changes.push({ ...base, id: eventId(record, 'identity.rotated'), type: 'identity.rotated', dataFor: () => data(action) });
  if (!old && item.revoked === false) rotated('issued');
  else if (old && old.revoked === false && item.revoked === true) rotated('revoked');
  if (typeof item.verified_at === 'string' && old !== undefined && typeof old.verified_at !== 'string') {
    changes.push({ ...base, id: eventId(record, 'identity.verified'), type: 'identity.verified', dataFor: () => data('verified') });
  }
  return changes;
};

/**
 * A SIM action that ended (issue #33): pending, then completed or failed; action.completed or
 * action.failed to the SIM owner's (as it was when the action was asked for) subscribers and
 * their ancestors', the action as its routes answer it.
 */
const actionChanges = (record: TableStreamRecord, timestamp: string, item: SimActionItem, old: Record<string, unknown> | undefined): LifecycleChange[] => {
  if (old?.status !== 'pending' || (item.status !== 'completed' && item.status !== 'failed')) return [];
  const type = item.status === 'completed' ? 'action.completed' : 'action.failed';
  const fields = item as unknown as Record<string, unknown>;
  return [
    {
      id: eventId(record, type),
      type,
      timestamp,
      customerId: textOf(fields, 'customer_id'),
      customerPath: customerPathOf(fields, 'customer_path'),
      dataFor: () => actionView(item),
    },
  ];
};

/** A received SMS, inserted (issue #21): sms.received to its SIM's owner and ancestors, the same data for each. */
const inboundChanges = (record: TableStreamRecord, timestamp: string, item: SmsInboundItem): LifecycleChange[] => [
  {
    id: eventId(record, 'sms.received'),
    type: 'sms.received',
    timestamp,
    customerId: textOf(item as unknown as Record<string, unknown>, 'owner_customer_id'),
    customerPath: customerPathOf(item as unknown as Record<string, unknown>, 'owner_customer_path'),
    dataFor: () => ({
      iccid: item.iccid,
      msisdn: item.msisdn,
      message_id: item.message_id,
      message: item.message,
      received_at: item.received_at,
      in_reply_to: item.in_reply_to ?? null,
    }),
  },
];

/**
 * The lifecycle events one DynamoDB Streams record (NEW_AND_OLD_IMAGES) stands for
 * (docs/webhooks.md), derived from the data, whoever wrote it:
 * - a SIM whose `status` becomes `active` / `suspended` / `cancelled` (inserted so, or changed
 *   to it): line.activated / line.suspended / line.cancelled, and for a suspended SIM made active
 *   again line.resumed as well (issue #33);
 * - a SIM whose usage or cost figures change: usage.updated;
 * - a bearer token or API key inserted unrevoked: identity.rotated `issued`; one changed from
 *   unrevoked to revoked: identity.rotated `revoked`;
 * - a credential that gains `verified_at` (its first successful authentication): identity.verified;
 * - a received SMS inserted (shared/sms/inbound.ts, taken once per inbound message): sms.received;
 * - a SIM action moved from pending to completed / failed (issue #33): action.completed / action.failed.
 * Anything else (removals, other items, writes that change none of these) makes no event.
 * An item whose owner, customer path or SIM id is not one (../db/stream-images.ts) throws
 * MalformedItem: its consumer sets the record aside rather than address an event by it.
 * A SIM's data is shown with its group's directory as `directories` gives it (names, bundle
 * figures and pool usage as they are now; shared/groups/directory.ts).
 */
export const lifecycleChanges = (record: TableStreamRecord, directories: (groupId: string) => GroupDirectory | undefined = () => undefined): LifecycleChange[] => {
  if (record.eventName === 'REMOVE') return [];
  const item = image(record.dynamodb?.NewImage);
  if (!item) return [];
  const old = record.eventName === 'MODIFY' ? image(record.dynamodb?.OldImage) : undefined;
  const seconds = record.dynamodb?.ApproximateCreationDateTime;
  const timestamp = isoWithOffset(typeof seconds === 'number' ? Math.round(seconds * 1000) : Date.now());
  if (item.type === 'sim') {
    const sim = simImageOf(item);
    // The old image is compared field by field only; its shape is not what the event addresses by.
    return simChanges(record, timestamp, sim, old?.type === 'sim' ? (old as unknown as SimItem) : undefined, directories(sim.customer_path[0]!));
  }
  if (item.type === 'sim_action') return record.eventName === 'MODIFY' ? actionChanges(record, timestamp, item as unknown as SimActionItem, old) : [];
  if (item.type === 'sms_inbound') return record.eventName === 'INSERT' ? inboundChanges(record, timestamp, item as unknown as SmsInboundItem) : [];
  if (item.type === 'bearer_token' || item.type === 'api_key') {
    return credentialChanges(record, timestamp, item as Credential, old?.type === item.type ? (old as Credential) : undefined);
  }
  return [];
};



