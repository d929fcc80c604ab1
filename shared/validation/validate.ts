import * as v from 'valibot';
import { ApiError } from '../errors/api-error';

/**
 * The one validation path of both areas: a request part (a body, a query string) is parsed
 * against its valibot schema with every issue collected, and the issue that wins is answered
 * as one 400 ApiError. What an issue answers (its code and detail) and which code wins are the
 * area's own (`Answers`): Area B derives them from the field's path (shared/checkout/validate.ts),
 * Area A's schemas carry them in their messages (./coded-message.ts).
 */

/** What a failing issue answers: the spec's error code and the detail naming the field. */
export interface Refusal {
  code: string;
  detail: string;
}

/** How the schemas of one family answer a failing issue. */
export interface Answers {
  /** The code and detail of one issue. */
  refusal: (issue: v.BaseIssue<unknown>) => Refusal;
  /**
   * The codes in the order in which they win. Without it (or among issues of one code) the
   * first issue in the schema's order wins: its fields in their order, each field's pipe in its
   * order.
   */
  precedence?: readonly string[];
}

/** An issue's path as keys: `['cart', 2, 'quantity']`. */
export const issuePath = (issue: v.BaseIssue<unknown>): (string | number)[] =>
  (issue.path ?? []).map((item) => item.key as string | number);

/** The 400 that answers `issues` (as valibot collects them, in the schema's order). */
export const refusalOf = (issues: readonly v.BaseIssue<unknown>[], answers: Answers): ApiError => {
  const rank = (code: string): number => {
    if (!answers.precedence) return 0;
    const at = answers.precedence.indexOf(code);
    return at < 0 ? answers.precedence.length : at;
  };
  const ranked = issues
    .map((issue, index) => ({ refusal: answers.refusal(issue), index }))
    .sort((a, b) => rank(a.refusal.code) - rank(b.refusal.code) || a.index - b.index);
  const winner = ranked[0]!.refusal;
  return new ApiError(400, winner.code, winner.detail);
};

/** `input` parsed by `schema` (its output: defaults applied, transforms run), or the 400 of its winning issue. */
export const validateWith = <TSchema extends v.GenericSchema>(schema: TSchema, input: unknown, answers: Answers): v.InferOutput<TSchema> => {
  const result = v.safeParse(schema, input, { abortEarly: false });
  if (result.success) return result.output;
  throw refusalOf(result.issues, answers);
};

/** validateWith for a schema with asynchronous checks (one that resolves a host, say). */
export const validateWithAsync = async <TSchema extends v.GenericSchema | v.GenericSchemaAsync>(
  schema: TSchema,
  input: unknown,
  answers: Answers,
): Promise<v.InferOutput<TSchema>> => {
  const result = await v.safeParseAsync(schema, input, { abortEarly: false });
  if (result.success) return result.output;
  throw refusalOf(result.issues, answers);
};
