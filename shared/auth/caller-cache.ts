import { credentialHash } from './credentials';
import { apiKeyCredential, bearerCredential, type DeveloperCaller, type RequestHeaders } from './two-factor';

/**
 * What this container last learnt from authenticating a (bearer token, API key) pair: the
 * caller it verified. A hint, never trusted alone: a request that finds one still reads the
 * token and key items (strongly consistent, as always) and answers by that read, but starts
 * its rate-limit write (and its route's read) beside the read instead of after it, for the
 * caller the hint names. So a revocation, a deactivation or a role change answers 401/403 on
 * the very next request, exactly as without the hint (docs/area-a.md, "Warm requests").
 *
 * Keyed by the SHA-256 of both presented credentials, so only the exact pair that was
 * verified here finds an entry (a wrong secret never does), and no credential is kept.
 */

const callers = new Map<string, DeveloperCaller>();
const maxCallers = 1_000;

/** The entry key of a request's credentials; undefined when either is missing. */
const entryOf = (headers: RequestHeaders): string | undefined => {
  const bearer = bearerCredential(headers);
  const apiKey = apiKeyCredential(headers);
  return bearer === undefined || apiKey === undefined ? undefined : credentialHash(`${bearer}\n${apiKey}`);
};

/** The caller these credentials were last verified as in this container, if any. */
export const cachedCaller = (headers: RequestHeaders): DeveloperCaller | undefined => {
  const entry = entryOf(headers);
  return entry === undefined ? undefined : callers.get(entry);
};

/** Remembers the caller these credentials were just verified as (the oldest entry goes past 1,000). */
export const rememberCaller = (headers: RequestHeaders, caller: DeveloperCaller): void => {
  const entry = entryOf(headers);
  if (entry === undefined) return;
  callers.delete(entry);
  callers.set(entry, caller);
  if (callers.size > maxCallers) callers.delete(callers.keys().next().value!);
};

/** Forgets these credentials (authentication refused them, or they now name another caller). */
export const forgetCaller = (headers: RequestHeaders): void => {
  const entry = entryOf(headers);
  if (entry !== undefined) callers.delete(entry);
};

/** Whether two verified callers are the same in everything a route uses. */
export const sameCaller = (left: DeveloperCaller, right: DeveloperCaller): boolean =>
  left.userId === right.userId &&
  left.userCustomerId === right.userCustomerId &&
  left.customerId === right.customerId &&
  left.customerPath.join('\u0000') === right.customerPath.join('\u0000') &&
  left.roles.join('\u0000') === right.roles.join('\u0000') &&
  left.scopes.join('\u0000') === right.scopes.join('\u0000');
