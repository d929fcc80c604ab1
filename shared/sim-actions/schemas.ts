import * as v from 'valibot';
import { maxPageSize, pagingEntries } from '../sims/list-query';
import { isCarriableText } from '../text/characters';
import { codedAnswers, refusalMessage } from '../validation/coded-message';
import { validateWith } from '../validation/validate';
import { actionIdPattern } from './action-id';
import { simActions } from './transitions';

/**
 * The SIM actions' request and answers (issue #33; docs/sim-actions.md) as valibot schemas: the
 * request body the POST route validates with (each message carrying its code and detail,
 * shared/validation/coded-message.ts), the action object every route answers, and the list's
 * envelope; the OpenAPI document's schemas come from them (scripts/openapi/).
 */

/** Longest `reason`, in characters (Unicode code points). */
export const maxReasonCharacters = 200;


const shape = 'The body must be {"action": "activate" | "suspend" | "resume" | "terminate", "reason": "..." (optional, at most 200 characters), "confirm": "<ICCID>" (terminate only)}.';
const notObject = refusalMessage('invalid_action', shape);
const unknownAction = refusalMessage('invalid_action', `action must be one of ${simActions.join(', ')}.`);
const badReason = refusalMessage(
  'invalid_action',
  `reason must be well-formed text (no lone surrogates or control characters other than tab and line breaks) of at most ${maxReasonCharacters} characters, or null.`,
);
const badConfirm = refusalMessage('invalid_action', 'confirm must be a string: the ICCID of the SIM to terminate.');

/**
 * POST /developer/api/sims/{sim}/actions/ body. Strict: a field the shape does not have is
 * 400 invalid_action too (the detail names it).
 */
export const SimActionRequest = v.strictObject(
  {
    action: v.pipe(
      v.picklist(simActions, unknownAction),
      v.description('What to ask the operator for: activate (from stock, dispatched, trial or inactive), suspend (from active or trial), resume (from suspended), terminate (from any status but cancelled; needs confirm and the admin role).'),
    ),
    reason: v.optional(
      v.nullable(
        v.pipe(
          v.string(badReason),
          v.check(isCarriableText, badReason),
          v.maxCodePoints(maxReasonCharacters, badReason),
          v.description(`Why, for the customer's own records, at most ${maxReasonCharacters} characters; shown back on the action.`),
        ),
      ),
    ),
    confirm: v.optional(
      v.pipe(v.string(badConfirm), v.description("terminate only: the SIM's ICCID, exactly (else 400 confirmation_required). Ignored for the other actions.")),
    ),
  },
  (issue) => (issue.expected === 'never' ? refusalMessage('invalid_action', `unknown field ${JSON.stringify(String(issue.path?.[0]?.key ?? '').slice(0, 64))}. ${shape}`) : notObject),
);

/** A valid request body. */
export type SimActionRequestBody = v.InferOutput<typeof SimActionRequest>;

/** The request body validated (400 invalid_action for anything not of the shape, the first issue in field order). */
export const validateSimActionRequest = (body: unknown): SimActionRequestBody => validateWith(SimActionRequest, body, codedAnswers);

const isoTime = (description: string) => v.pipe(v.string(), v.isoTimestamp(), v.description(description));

/** Why an action failed. */
export const SimActionFailure = v.pipe(
  v.strictObject({
    code: v.pipe(
      v.picklist(['rejected_by_operator', 'operator_timeout', 'superseded']),
      v.description('rejected_by_operator: the operator refused it (detail: its reason); operator_timeout: no confirmation within 24 hours; superseded: a record of the operator set another status first.'),
    ),
    detail: v.pipe(v.string(), v.description('In words; for rejected_by_operator the operator\'s own reason.')),
  }),
  v.description('Why the action failed.'),
);

/** An action as every route answers it. */
export const SimActionObject = v.pipe(
  v.strictObject({
    action_id: v.pipe(v.string(), v.regex(actionIdPattern), v.description('act_ and 28 hexadecimal digits.')),
    sim: v.pipe(v.number(), v.integer(), v.minValue(0), v.description('The internal SIM id.')),
    iccid: v.string(),
    action: v.picklist(simActions),
    status: v.pipe(
      v.picklist(['pending', 'completed', 'failed']),
      v.description('pending until the operator confirms; completed once the SIM has the status the action asks for; failed otherwise (see failure).'),
    ),
    reason: v.pipe(v.nullable(v.string()), v.description('The reason given, or null.')),
    requested_at: isoTime('When it was asked for, UTC with +00:00.'),
    completed_at: v.pipe(v.nullable(v.pipe(v.string(), v.isoTimestamp())), v.description('When it completed or failed; null while pending.')),
    failure: v.nullable(SimActionFailure),
  }),
  v.description('A SIM action.'),
);

/** An action as answered. */
export type SimActionView = v.InferOutput<typeof SimActionObject>;

/** GET /developer/api/sims/{sim}/actions/: a page of a SIM's actions, newest first (A1's envelope). */
export const SimActionList = v.pipe(
  v.strictObject({
    count: v.pipe(v.number(), v.integer(), v.minValue(0), v.description("Number of the SIM's actions.")),
    page: v.pipe(v.number(), v.integer(), v.minValue(1)),
    page_size: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(maxPageSize)),
    total_pages: v.pipe(v.number(), v.integer(), v.minValue(0), v.description('ceil(count / page_size); 0 when there is none.')),
    results: v.pipe(v.array(SimActionObject), v.description('The actions of this page, newest first; empty beyond the last page.')),
  }),
  v.description("A page of a SIM's actions."),
);

/** The list's query: A1's paging. */
export const simActionsQuerySchema = v.object({ ...pagingEntries });

/** The list's query validated (400 invalid_page, invalid_page_size). */
export const validateSimActionsQuery = (query: Record<string, string | undefined> | null | undefined): { page: number; page_size: number } =>
  validateWith(simActionsQuerySchema, query ?? {}, codedAnswers);

/** `{sim}` of the action routes, for the document: the SIM id or its ICCID. */
export const simParameterSchema = v.pipe(
  v.string(),
  v.regex(/^\d{1,20}$/),
  v.description("The SIM: its internal id (1 to 15 digits, as A2 takes it) or its ICCID (16 to 20 digits, as the SMS routes take it). Anything else, or a SIM outside the key's scope, is 404 not_found."),
);

/** `{action_id}`, for the document. */
export const actionIdParameterSchema = v.pipe(
  v.string(),
  v.regex(actionIdPattern),
  v.description("An action of this SIM. Anything else (another SIM's, not an id) is 404 not_found."),
);
