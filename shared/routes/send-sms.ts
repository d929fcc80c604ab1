import type { SmsProvider } from '../adapters/sms-provider/provider';
import { parseAllowedHosts } from '../callbacks/allowed-hosts';
import { localRefusalHint } from '../callbacks/callback-url';
import type { FunctionConfig } from '../config/function-config';
import type { SimItem } from '../db/items';
import { developerDeps, developerRoute, type DeveloperDeps } from '../http/developer-route';
import { requestBaseUrl } from '../http/headers';
import { ok } from '../http/responses';
import { smsProviderOf } from '../sms/configured-provider';
import { sendSms } from '../sms/send-sms';
import { findSimInScope } from '../sms/sim-target';

/** What sending an SMS needs beyond every Area A route's deps. */
export interface SendSmsDeps extends DeveloperDeps {
  /** Hosts exempt from callback_url's public-address rule (CALLBACK_ALLOWED_HOSTS). */
  allowedCallbackHosts: string[];
  /** Said after a refusal of a non-public callback_url (locally: the inbox and CALLBACK_ALLOWED_HOSTS). */
  callbackRefusalHint?: string;
  /**
   * The provider adapter for a request that reached the API at `requestBaseUrl` (the receipt
   * URL's origin when PUBLIC_BASE_URL is not set); undefined when SMS is not configured.
   */
  provider: (requestBaseUrl: string | undefined) => Promise<SmsProvider | undefined>;
  /** What configuration the provider lacks, for the ERROR line of `sms_not_configured`. */
  providerMissing?: string;
}

/**
 * The deps of the send-sms function, from its configuration (read once at init): with
 * SMS_PROVIDER=aws, the AWS End User Messaging client is built here, once per container.
 */
export const sendSmsDeps = (config: FunctionConfig<'send-sms'>): SendSmsDeps => {
  const sms = smsProviderOf(config);
  return {
    ...developerDeps(config),
    allowedCallbackHosts: parseAllowedHosts(config.allowedCallbackHosts),
    callbackRefusalHint: localRefusalHint(config.localWebhookInboxUrl),
    provider: sms.provider,
    providerMissing: sms.missing,
  };
};

/**
 * POST /developer/api/sims/{sim}/sms/ (A3), `{sim}` being the ICCID: sends an SMS. The SIM is
 * looked up beside the rate-limit write (developerRoute's `prepare`); its 404 answers only
 * where sendSms awaits it, after the body rules 1-5, as docs/sms.md orders them.
 */
export const sendSmsRoute = (deps: SendSmsDeps) =>
  developerRoute<SimItem, SendSmsDeps>(
    {
      deps,
      scope: 'sms:send',
      json: true,
      prepare: ({ event, caller }, resolved) => findSimInScope(resolved, event.pathParameters?.sim ?? '', caller.customerId),
    },
    async ({ event, caller, prepared }, resolved) => {
      const result = await sendSms(
        {
          table: resolved,
          callbackPolicy: { allowedHosts: resolved.allowedCallbackHosts, refusalHint: resolved.callbackRefusalHint },
          provider: () => resolved.provider(requestBaseUrl(event)),
          ...(resolved.providerMissing ? { providerMissing: resolved.providerMissing } : {}),
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
