import type * as v from 'valibot';
import { CallbackUrlRefused, checkCallbackUrl, type CallbackUrlPolicy } from '../callbacks/callback-url';
import { ApiError } from '../errors/api-error';
import { quoteInput } from '../errors/detail-text';
import { defaultEventTypes, eventTypes, isEventType, type EventType } from './event-types';
import { issuePath, validateWith, type Answers, type Refusal } from '../validation/validate';
import { CreateWebhookRequest, maxDescriptionLength } from './schemas';

/** A create request, validated: the normalised URL, the event types (deduplicated, in the documented order) and the description. */
export interface ValidCreateRequest {
  url: string;
  events: EventType[];
  description: string | null;
}

const refused = (code: string, detail: string) => new ApiError(400, code, detail);

/** Unknown names a detail quotes; the rest are counted. */
const unknownNamesQuoted = 3;

/** The unknown event names as the detail gives them: the first three quoted (shared/errors/detail-text.ts), the rest counted. */
const unknownEventsText = (unknown: unknown[]): string => {
  const quoted = unknown.slice(0, unknownNamesQuoted).map(quoteInput).join(', ');
  if (unknown.length <= unknownNamesQuoted) return `unknown event types: ${quoted}`;
  return `${unknown.length} unknown event types: ${quoted} and ${unknown.length - unknownNamesQuoted} more`;
};

/**
 * The answers of CreateWebhookRequest's issues, by the field they are about (the url has been
 * checked before the schema runs): `events` names the unknown types it was given, if any.
 */
const createRequestAnswers: Answers = {
  refusal: (issue: v.BaseIssue<unknown>): Refusal => {
    if (issuePath(issue)[0] === 'events') {
      const events = issue.path?.[0]?.value;
      const unknown = Array.isArray(events) ? events.filter((name) => !isEventType(name)) : [];
      return {
        code: 'invalid_webhook_events',
        detail:
          unknown.length > 0
            ? `events contains ${unknownEventsText(unknown)}; known: ${eventTypes.join(', ')}.`
            : `events must be a non-empty array of event types (${eventTypes.join(', ')}).`,
      };
    }
    return {
      code: 'invalid_webhook_description',
      detail: `description must be well-formed text (no lone surrogates or control characters other than tab and line breaks) of at most ${maxDescriptionLength} characters, or null.`,
    };
  },
};

/**
 * Validates POST /developer/api/webhooks/ (docs/webhooks.md), in the order of its fields,
 * against CreateWebhookRequest: a body that is not a JSON object is 400 `invalid_request`;
 * `url` follows the callback_url rules (HTTPS, no credentials, every address it resolves to
 * public unless CALLBACK_ALLOWED_HOSTS exempts it): 400 `invalid_webhook_url`; `events`, when
 * given, a non-empty array of known event names: 400 `invalid_webhook_events`; `description`,
 * when given, well-formed text (shared/text/characters.ts) of at most 200 characters (null:
 * none): 400 `invalid_webhook_description`. The schema runs through the one validation path
 * of both areas (shared/validation/validate.ts).
 */
export const validateCreateRequest = async (body: unknown, policy: CallbackUrlPolicy): Promise<ValidCreateRequest> => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw refused('invalid_request', 'The request body must be a JSON object: {"url": "https://...", "events": [...], "description": "..."}.');
  }
  const fields = body as Record<string, unknown>;
  let url: string;
  try {
    url = await checkCallbackUrl(fields.url, policy);
  } catch (error) {
    if (error instanceof CallbackUrlRefused) throw refused('invalid_webhook_url', error.detail.replaceAll('callback_url', 'url'));
    throw error;
  }
  const parsed = validateWith(CreateWebhookRequest, { ...fields, url }, createRequestAnswers);
  const chosen: readonly EventType[] = parsed.events ?? defaultEventTypes;
  return {
    url,
    events: eventTypes.filter((type) => chosen.includes(type)),
    description: parsed.description ?? null,
  };
};
