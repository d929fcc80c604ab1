import { developerRoute, type DeveloperDeps } from '../shared/http/developer-route';
import { ok } from '../shared/http/responses';
import { readSmsConfig } from '../shared/sms/config';
import { configuredSmsProvider, requestBaseUrl } from '../shared/sms/configured-provider';
import { sendSms } from '../shared/sms/send-sms';
import { findSimInScope } from '../shared/sms/sim-target';

/**
 * POST /developer/api/sims/{sim}/sms/ (A3), `{sim}` being the ICCID: sends an SMS. The SIM is
 * looked up beside the rate-limit write (developerRoute's `prepare`); its 404 answers only
 * where sendSms awaits it, after the body rules 1-5, as docs/sms.md orders them.
 */
export const sendSmsRoute = (deps?: DeveloperDeps | (() => DeveloperDeps)) =>
  developerRoute(
    {
      deps,
      json: true,
      prepare: ({ event, caller }, resolved) => findSimInScope(resolved, event.pathParameters?.sim ?? '', caller.customerId),
    },
    async ({ event, caller, prepared }, resolved) => {
      const config = readSmsConfig();
      const result = await sendSms(
        {
          table: resolved,
          callbackPolicy: { allowedHosts: config.allowedCallbackHosts },
          provider: () => configuredSmsProvider(config, requestBaseUrl(event)),
          now: () => new Date(resolved.now()),
        },
        {
          customerId: caller.customerId,
          sim: prepared,
        },
        event.body,
      );
      return ok(202, result);
    },
  );

/** The Lambda handler. */
export const handler = sendSmsRoute();
