import type { SimItem } from '../db/items';
import { ApiError } from '../errors/api-error';
import type { SimScope } from './deps';
import type { GroupDirectory } from '../groups/directory';
import { simInScope, simObject, type SimObject } from './sim-object';

/** The 404 of a SIM that does not exist or is outside the key's scope: one body for both. */
export const simNotFound = (): ApiError => new ApiError(404, 'not_found', 'Not found.');

/** A2's path parameter `{sim}`: the internal SIM id, a whole number (up to 15 digits). */
const simIdPattern = /^\d{1,15}$/;

/** The shape of an ICCID (19 or 20 digits), which A2 is often given instead of the SIM id. */
const iccidShape = /^\d{19,20}$/;

/**
 * The SIM id of A2's path parameters; a value that is not a SIM id is 404 not_found, like a
 * missing SIM. Given 19 or 20 digits, the detail says that A2 takes the SIM id and the SMS
 * routes the ICCID: the hint depends on the path's shape only (no such value is ever read),
 * so a missing SIM and one out of scope stay indistinguishable.
 */
export const simIdFromPath = (pathParameters: unknown): number => {
  const sim = typeof pathParameters === 'object' && pathParameters !== null ? (pathParameters as { sim?: unknown }).sim : undefined;
  if (typeof sim === 'string' && iccidShape.test(sim)) {
    throw new ApiError(
      404,
      'not_found',
      'Not found: GET /developer/api/sims/<sim_id>/ takes the numeric SIM id (up to 15 digits); an ICCID (19 or 20 digits) is what the SMS routes take: /developer/api/sims/<iccid>/sms/.',
    );
  }
  if (typeof sim !== 'string' || !simIdPattern.test(sim)) throw simNotFound();
  return Number(sim);
};

/** The SIM item of a read item, or undefined when it is none. */
export const simItemOf = (item: Record<string, unknown> | undefined): SimItem | undefined =>
  item?.type === 'sim' ? (item as unknown as SimItem) : undefined;

/**
 * A2: the SIM object of a read SIM, or 404 not_found, with the very same body, when the SIM
 * does not exist or belongs to a customer outside the key's scope (a sub-customer's key never
 * sees its parent's or a sibling's SIMs).
 */
export const simForScope = (sim: SimItem | undefined, scope: SimScope, directory?: GroupDirectory): SimObject => {
  if (!sim || !simInScope(sim, scope.customerId)) throw simNotFound();
  return simObject(sim, scope.customerId, directory);
};
