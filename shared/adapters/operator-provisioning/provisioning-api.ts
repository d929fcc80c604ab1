import { createHmac } from 'node:crypto';
import { OutboundError, outboundPost } from '../https/outbound-post';
import { trustedCa } from '../https/trusted-ca';

/**
 * The operator's provisioning API (issue #33), as docs/operator-provisioning-api.md defines it:
 * one signed JSON POST per SIM action. This is the one module that speaks it; a real operator's
 * system is plugged in behind it (or by changing this module), the local emulator implements it
 * (local/operator-emulator.ts).
 */

/** One action as the operator receives it. */
export interface ProvisioningRequest {
  action_id: string;
  iccid: string;
  action: string;
  /** The status the SIM is to have once done: what the operator's confirming feed record carries. */
  target_status: string;
  reason: string | null;
  requested_at: string;
}

/**
 * What the operator answered: `accepted` (2xx: it will confirm through the feed), `rejected`
 * (a 4xx other than 401, 408 and 429: it will not do it, for `reason`), or `retry` (a 401, the
 * signature not taken: configuration to fix, not a refusal of the action; a 408, 429, 3xx or 5xx,
 * or no answer in time: try again later).
 */
export type ProvisioningAnswer = { kind: 'accepted' } | { kind: 'rejected'; status: number; reason: string } | { kind: 'retry'; reason: string };

/** The operator's provisioning API, as the service sees it. */
export interface OperatorProvisioning {
  submit(request: ProvisioningRequest): Promise<ProvisioningAnswer>;
}

/** Settings of the HTTP adapter. */
export interface ProvisioningApiSettings {
  /** OPERATOR_PROVISIONING_URL. */
  baseUrl: string;
  /** The HMAC key (the OPERATOR_PROVISIONING_SECRET secret), read per request (rotation needs no redeploy). */
  secret: () => Promise<string | undefined>;
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
  /** A PEM file of extra trusted CAs (NODE_EXTRA_CA_CERTS), beside Node's own. */
  extraCaCertificates?: string;
}

/** The signature header's value: `sha256=` and the hex HMAC-SHA256 of the raw body, as the SMS provider signs its receipts. */
export const provisioningSignature = (secret: string, body: string): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** The longest operator reason kept (characters). */
export const maxOperatorReasonCharacters = 500;

/** The 4xx answers that are tried again rather than taken as a refusal of the action. */
const retriedClientErrors = [401, 408, 429];

/** Answer bytes read. */
const maxResponseBytes = 16 * 1024;

/** The `reason` of a 4xx answer's JSON body, or one made of its status. */
const reasonOf = (status: number, body: Buffer): string => {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { reason?: unknown };
    if (typeof parsed.reason === 'string' && parsed.reason.trim() !== '') return [...parsed.reason].slice(0, maxOperatorReasonCharacters).join('');
  } catch {
    // Not JSON: the status says it.
  }
  return `the operator answered ${status} without a reason`;
};

/**
 * The HTTP adapter: `POST {OPERATOR_PROVISIONING_URL}/actions` with the JSON request and
 * `X-Operator-Signature: sha256=<hex HMAC-SHA256 of the raw body>`, 3 s to connect, 10 s in all,
 * redirects not followed.
 */
export const httpOperatorProvisioning = (settings: ProvisioningApiSettings): OperatorProvisioning => ({
  submit: async (request) => {
    const secret = await settings.secret();
    if (!secret) throw new Error('OPERATOR_PROVISIONING_SECRET is not configured (nor OPERATOR_PROVISIONING_SECRET_SECRET_ARN)');
    const url = new URL(`${settings.baseUrl.replace(/\/+$/, '')}/actions`);
    const body = JSON.stringify(request);
    let response;
    try {
      response = await outboundPost({
        url,
        headers: { 'content-type': 'application/json', accept: 'application/json', 'x-operator-signature': provisioningSignature(secret, body) },
        body,
        connectTimeoutMs: settings.connectTimeoutMs ?? 3000,
        totalTimeoutMs: settings.totalTimeoutMs ?? 10_000,
        maxResponseBytes,
        ca: trustedCa(settings.extraCaCertificates),
      });
    } catch (error) {
      if (error instanceof OutboundError) return { kind: 'retry', reason: `${error.kind}: ${error.message}` };
      throw error;
    }
    if (response.status >= 200 && response.status <= 299) return { kind: 'accepted' };
    if (response.status >= 400 && response.status <= 499 && !retriedClientErrors.includes(response.status)) {
      return { kind: 'rejected', status: response.status, reason: reasonOf(response.status, response.body) };
    }
    return { kind: 'retry', reason: `the operator answered ${response.status}` };
  },
});
