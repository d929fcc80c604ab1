import type * as v from 'valibot';
import { ApiError } from '../errors/api-error';
import { issuePath, validateWith, type Answers } from '../validation/validate';

/** The 400 codes that request validation answers with, in the order in which they win. */
export const validationCodes = [
  'invalid_request',
  'invalid_shipping_address',
  'invalid_billing_address',
  'data_processing_consent_required',
] as const;

/** One of the validation codes. */
export type ValidationCode = (typeof validationCodes)[number];

/** Address fields whose failure is the address's own error; any other address field is invalid_request. */
const shippingScoped = new Set(['name', 'line1', 'city', 'postal_code', 'country']);
const billingScoped = new Set(['line1', 'city', 'postal_code', 'country']);

/**
 * The error code of a failing field, from its path (e.g. ['shipping_address', 'city']), as
 * the spec scopes the codes: shipping_address missing or a bad name, line1, city,
 * postal_code or country → invalid_shipping_address; billing_address missing or a bad
 * line1, city, postal_code or country → invalid_billing_address; anything wrong with
 * data_processing_consent → data_processing_consent_required; everything else (including
 * an address's line2, region or phone over its limit) → invalid_request.
 */
export const codeForPath = (path: readonly (string | number)[]): ValidationCode => {
  const [top, field] = path;
  if (top === 'shipping_address' && (field === undefined || shippingScoped.has(String(field)))) {
    return 'invalid_shipping_address';
  }
  if (top === 'billing_address' && (field === undefined || billingScoped.has(String(field)))) {
    return 'invalid_billing_address';
  }
  if (top === 'data_processing_consent') return 'data_processing_consent_required';
  return 'invalid_request';
};

/** A field path as the detail names it: `cart[2].quantity`, `shipping_address.line1`. */
export const formatPath = (path: readonly (string | number)[]): string =>
  path.reduce<string>(
    (text, segment) => (typeof segment === 'number' ? `${text}[${segment}]` : text === '' ? segment : `${text}.${segment}`),
    '',
  );

/** The detail of one issue: the field's path, then "is required" or the schema's phrase. */
const issueDetail = (issue: v.BaseIssue<unknown>): string => {
  const path = formatPath(issuePath(issue));
  if (path === '') return `The request body ${issue.message}.`;
  const missing = issue.kind === 'schema' && issue.received === 'undefined';
  return `${path} ${missing ? 'is required' : issue.message}.`;
};

/** Area B's answers: the code from the field's path (codeForPath), ranked as `validationCodes`; the detail names the field. */
const checkoutAnswers: Answers = {
  refusal: (issue) => ({ code: codeForPath(issuePath(issue)), detail: issueDetail(issue) }),
  precedence: validationCodes,
};

/**
 * Validates a request body against an endpoint's schema (shared/validation/validate.ts). On
 * failure, every issue is collected and the one that wins is answered: the code earliest in
 * `validationCodes`, and within a code the first field in the schema's order. The detail
 * names that field.
 */
export const validateBody = <TSchema extends v.GenericSchema>(schema: TSchema, body: unknown): v.InferOutput<TSchema> => {
  // valibot's object() takes an array for an object; the body must be a JSON object.
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError(400, 'invalid_request', 'The request body must be a JSON object.');
  }
  return validateWith(schema, body, checkoutAnswers);
};

