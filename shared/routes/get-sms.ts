import { developerRoute, type DeveloperDeps } from '../http/developer-route';
import { ok } from '../http/responses';
import { getMessageState } from '../sms/get-message';

/**
 * GET /developer/api/sims/{sim}/sms/{message_id}/ (reconciliation, beyond the spec), `{sim}`
 * being the ICCID: the current state of a message sent to that SIM, for a caller that missed
 * a receipt. The message is read beside the rate-limit write when that is expected to admit.
 */
export const getSmsRoute = (deps: DeveloperDeps) =>
  developerRoute(
    {
      deps,
      scope: 'sms:send',
      prepare: ({ event, caller }, resolved) =>
        getMessageState(resolved, caller.customerId, event.pathParameters?.sim ?? '', event.pathParameters?.message_id ?? ''),
    },
    async ({ prepared }) => ok(200, await prepared()),
  );
