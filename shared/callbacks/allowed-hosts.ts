import { canonicalIpv6, isIPv6 } from './address-policy';

/** Lower-cases a host, drops brackets and a trailing dot, and writes IPv6 in one canonical form. */
const normaliseHost = (host: string): string => {
  let text = host.trim().toLowerCase();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (text.endsWith('.')) text = text.slice(0, -1);
  if (text.includes(':') && isIPv6(text)) return canonicalIpv6(text);
  return text;
};

/** One entry: a host, or a host and port (`127.0.0.1:8443`, `[::1]:8443`, `receiver.test:8443`). */
const normaliseEntry = (entry: string): string => {
  const text = entry.trim();
  const withPort = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(text);
  if (!withPort) return normaliseHost(text);
  const host = normaliseHost(withPort[1]!);
  return `${host.includes(':') ? `[${host}]` : host}:${Number(withPort[2])}`;
};

/**
 * Parses `CALLBACK_ALLOWED_HOSTS`: comma-separated host names or IP literals that are exempt
 * from the "publicly reachable" rule of callback_url (HTTPS is still required). An entry with a
 * port (`127.0.0.1:8443`) exempts that one origin only, as the local runtime does for its
 * webhook inbox; without one, every port of the host. Meant for local testing only; the
 * deployed stack leaves it empty.
 */
export const parseAllowedHosts = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map(normaliseEntry)
    .filter((host) => host !== '');

/** True when a URL's host (any port), or its host and port (443 when none is given), is allowed. */
export const isAllowedHost = (url: URL, allowedHosts: readonly string[]): boolean => {
  if (allowedHosts.length === 0) return false;
  const host = normaliseHost(url.hostname);
  const origin = `${host.includes(':') ? `[${host}]` : host}:${url.port === '' ? 443 : Number(url.port)}`;
  return allowedHosts.includes(host) || allowedHosts.includes(origin);
};
