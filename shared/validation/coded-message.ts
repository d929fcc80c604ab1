import type * as v from 'valibot';
import type { Answers, Refusal } from './validate';

/**
 * Schemas whose messages are their answers: every message of such a schema (of its types and
 * of each action in its pipes) is made by `refusalMessage` from the spec's error code and the
 * exact detail, so the schema alone states a field's rule, its code and its words. Area A's
 * request schemas are written this way (shared/sims/list-query.ts, shared/sms/submission.ts).
 */

// An error code is lower-case words joined by underscores; the detail follows one space.
const coded = /^([a-z][a-z0-9_]*) ([\s\S]+)$/;

/** A valibot message that answers 400 `code` with `detail`. */
export const refusalMessage = (code: string, detail: string): string => `${code} ${detail}`;

/** The code and detail of a message made by refusalMessage; throws for any other (a schema written wrong). */
export const readRefusal = (message: string): Refusal => {
  const match = coded.exec(message);
  if (!match) throw new Error(`validation message without an error code: ${message}`);
  return { code: match[1]!, detail: match[2]! };
};

/** The answers of schemas written with refusalMessage: the first issue in the schema's order wins. */
export const codedAnswers: Answers = {
  refusal: (issue: v.BaseIssue<unknown>) => readRefusal(issue.message),
};
