import { addressRefusal, isIpLiteral } from './address-policy';
import { isAllowedHost } from './allowed-hosts';
import { resolveHost, type HostResolver } from './resolve-host';

/** Longest callback_url accepted (characters). */
export const maxCallbackUrlLength = 2048;

/** Why a callback_url was refused; `detail` is safe to show to the caller. */
export class CallbackUrlRefused extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'CallbackUrlRefused';
  }
}

/** What the callback_url check needs. */
export interface CallbackUrlPolicy {
  /** Hosts exempt from the public-address rule (CALLBACK_ALLOWED_HOSTS). */
  allowedHosts: readonly string[];
  /** Resolves a host name to all its addresses (default: the system resolver). */
  resolve?: HostResolver;
  /** Said after the detail of a host refused as not public (localRefusalHint: the local runtime's way out). */
  refusalHint?: string;
}

/**
 * What a refusal of a non-public host adds when the service runs locally (`inboxUrl`, the local
 * runtime's HTTPS webhook inbox, is set): the inbox, which is always accepted, and the variable
 * that allows other hosts. Nothing deployed, where no such way out exists.
 */
export const localRefusalHint = (inboxUrl: string | undefined): string | undefined =>
  inboxUrl
    ? ` Locally, the built-in HTTPS inbox ${inboxUrl} is accepted, and CALLBACK_ALLOWED_HOSTS=host[:port],... (a variable of npm start) allows other hosts.`
    : undefined;

/** The URL's host without IPv6 brackets, as node:https and the resolver want it. */
export const connectHost = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Parses a callback_url and checks the parts that need no network: a WHATWG URL (which
 * normalises numeric host tricks such as `2130706433`, `0x7f.1` or `127.1` to dotted IPv4),
 * HTTPS, no user name or password, and, for an IP literal host, a public unicast address
 * unless the host is allowed. Throws CallbackUrlRefused.
 */
export const parseCallbackUrl = (raw: unknown, allowedHosts: readonly string[], refusalHint = ''): URL => {
  if (typeof raw !== 'string' || raw.trim() === '') throw new CallbackUrlRefused('callback_url must be a non-empty string.');
  if (raw.length > maxCallbackUrlLength) {
    throw new CallbackUrlRefused(`callback_url must be at most ${maxCallbackUrlLength} characters.`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CallbackUrlRefused('callback_url is not a valid absolute URL.');
  }
  if (url.protocol !== 'https:') throw new CallbackUrlRefused('callback_url must use HTTPS.');
  if (url.username !== '' || url.password !== '') {
    throw new CallbackUrlRefused('callback_url must not contain a user name or password.');
  }
  if (url.hostname === '') throw new CallbackUrlRefused('callback_url has no host.');
  if (isAllowedHost(url, allowedHosts)) return url;
  if (isIpLiteral(url.hostname)) {
    const reason = addressRefusal(connectHost(url));
    if (reason) throw new CallbackUrlRefused(`callback_url must point to a publicly reachable host; ${url.hostname} is ${reason}.${refusalHint}`);
  }
  return url;
};

/**
 * Checks a callback_url fully (spec A3 rule 5): parseCallbackUrl, then for a host name, that
 * it resolves and that EVERY address it resolves to is public unicast (allowed hosts are
 * exempt). Returns the normalised URL string; throws CallbackUrlRefused. The forwarder checks
 * the connected address again at delivery time (see resolve-host.ts).
 */
export const checkCallbackUrl = async (raw: unknown, policy: CallbackUrlPolicy): Promise<string> => {
  const url = parseCallbackUrl(raw, policy.allowedHosts, policy.refusalHint);
  if (isAllowedHost(url, policy.allowedHosts) || isIpLiteral(url.hostname)) return url.href;
  let addresses: string[];
  try {
    addresses = await (policy.resolve ?? resolveHost)(connectHost(url));
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) throw new CallbackUrlRefused(`callback_url host ${url.hostname} does not resolve.`);
  for (const address of addresses) {
    const reason = addressRefusal(address);
    if (reason) {
      throw new CallbackUrlRefused(
        `callback_url must point to a publicly reachable host; ${url.hostname} resolves to a ${reason} address.${policy.refusalHint ?? ''}`,
      );
    }
  }
  return url.href;
};
