/**
 * The admin CLI's rules for the names and amounts it is given, each from the one statement of
 * its rule (shared/vocabulary/fields.ts: the id rule, ICCIDs, SIM statuses, decimal amounts;
 * order ids as checkout makes them). An argument that breaks its rule is refused with the
 * rule's wording, on one line and with exit code 2, before any read or write: a customer id
 * with `#` could otherwise name another customer's key, and 3,000 characters are more than a
 * DynamoDB key may hold. docs/seed.md ("Validation rules") states the rules.
 */
import * as v from 'valibot';
import { apiKeyScopes, isApiKeyScope } from '../shared/auth/scopes';
import { isOrderId } from '../shared/fulfilment/message';
import { decimal, iccid, identifier, picklist, simStatuses } from '../shared/vocabulary/fields';
import { UsageError } from './command';

/** An argument that breaks its rule: answered with its one line and exit code 2. */
export class ArgumentRefused extends UsageError {}

/** An order id as checkout makes them (shared/fulfilment/message.ts isOrderId). */
const orderId = () => v.pipe(v.string('must be a string'), v.check((value: string) => isOrderId(value), 'must be an order id (a lower-case UUID)'));

/** The names of a comma-separated list of API key scopes (`--scopes`; empty names ignored). */
export const scopeNames = (value: string): string[] => value.split(',').map((name) => name.trim()).filter((name) => name !== '');

/** `--scopes`: comma-separated API key scopes (shared/auth/scopes.ts); an empty list gives a key none. */
const scopeList = () =>
  v.pipe(
    v.string('must be a string'),
    v.check((value: string) => scopeNames(value).every(isApiKeyScope), `must be a comma-separated list of ${apiKeyScopes.join(', ')}`),
  );

/** The rule of each option that carries a name or an amount, by the option's name. */
const optionRules = new Map<string, v.GenericSchema>([
  ['user', identifier()],
  ['customer', identifier()],
  ['effect', identifier()],
  ['status', picklist(simStatuses)],
  ['data-used-mb', decimal()],
  ['scopes', scopeList()],
]);

/** The rule of each command's positional argument, with the argument's name in the usage. */
const argumentRules = new Map<string, { label: string; rule: v.GenericSchema }>([
  ['set-sim', { label: 'ICCID', rule: iccid() }],
  ['remove-sim', { label: 'ICCID', rule: iccid() }],
  ['deactivate-user', { label: 'USER_ID', rule: identifier() }],
  ['activate-user', { label: 'USER_ID', rule: identifier() }],
  ['resend-effect', { label: 'ORDER_ID', rule: orderId() }],
  ['resume-order', { label: 'ORDER_ID', rule: orderId() }],
]);

const refuse = (label: string, rule: v.GenericSchema, value: string): void => {
  const checked = v.safeParse(rule, value);
  if (!checked.success) throw new ArgumentRefused(`${label} ${checked.issues[0].message}`);
};

/**
 * Checks the command's positional argument and every option that names something or carries
 * an amount; throws ArgumentRefused with the first that breaks its rule (`--customer must be 1
 * to 64 characters of ...`, `ICCID must be 1 to 20 digits`).
 */
export const checkArguments = (command: string, argument: string | undefined, options: Readonly<Record<string, unknown>>): void => {
  const positional = argumentRules.get(command);
  if (positional && argument !== undefined) refuse(positional.label, positional.rule, argument);
  for (const [name, rule] of optionRules) {
    const value = Object.hasOwn(options, name) ? options[name] : undefined;
    if (typeof value === 'string') refuse(`--${name}`, rule, value);
  }
};
