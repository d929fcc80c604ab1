/** Stripe's error answers: `{"error": {type, code, message, param, ...}}` with Stripe's status codes. */

/** The body of a Stripe error. */
export interface StripeErrorBody {
  type: 'invalid_request_error' | 'card_error' | 'idempotency_error' | 'api_error';
  code?: string;
  message: string;
  param?: string;
  doc_url?: string;
  decline_code?: string;
  [more: string]: unknown;
}

/** An error answer the emulator gives, thrown by the routes and written by the handler. */
export class StripeEmulatorError extends Error {
  constructor(
    readonly status: number,
    readonly body: StripeErrorBody,
  ) {
    super(body.message);
  }
}

const docUrl = (code: string) => `https://stripe.com/docs/error-codes/${code.replaceAll('_', '-')}`;

const invalid = (status: number, code: string | undefined, message: string, param?: string) =>
  new StripeEmulatorError(status, {
    type: 'invalid_request_error',
    ...(code ? { code, doc_url: docUrl(code) } : {}),
    message,
    ...(param ? { param } : {}),
  });

/** 400 `parameter_missing`. */
export const parameterMissing = (param: string) => invalid(400, 'parameter_missing', `Missing required param: ${param}.`, param);
/** 400 `parameter_invalid_integer`. */
export const invalidInteger = (param: string, value: string) => invalid(400, 'parameter_invalid_integer', `Invalid integer: ${value}`, param);
/** 400 `parameter_invalid_empty` / bad value. */
export const invalidValue = (param: string, message: string, code = 'parameter_invalid_string') => invalid(400, code, message, param);
/** 400 `parameter_unknown`. */
export const unknownParameter = (param: string) => invalid(400, 'parameter_unknown', `Received unknown parameter: ${param}`, param);
/** 404 `resource_missing`. */
export const resourceMissing = (kind: string, id: string, param: string) => invalid(404, 'resource_missing', `No such ${kind}: '${id}'`, param);
/** 400 `payment_intent_unexpected_state`. */
export const unexpectedState = (message: string) => invalid(400, 'payment_intent_unexpected_state', message);
/** 404 for a URL the emulator does not serve (Stripe gives no code here). */
export const unrecognizedUrl = (method: string, path: string) =>
  invalid(404, undefined, `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`);
/** 401: no key, or a key the emulator does not know. */
export const unauthorized = (message: string) => new StripeEmulatorError(401, { type: 'invalid_request_error', message });
/** 400 `idempotency_error` (Stripe sends only the type for it). */
export const idempotencyMismatch = (key: string) =>
  new StripeEmulatorError(400, {
    type: 'idempotency_error',
    message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
  });
