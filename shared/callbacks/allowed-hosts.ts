import ipaddr from 'ipaddr.js';

/** Lower-cases a host, drops brackets and a trailing dot, and writes IPv6 in one canonical form. */
const normaliseHost = (host: string): string => {
  let text = host.trim().toLowerCase();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (text.endsWith('.')) text = text.slice(0, -1);
  if (text.includes(':') && ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text).toString();
  return text;
};

/**
 * Parses `CALLBACK_ALLOWED_HOSTS`: comma-separated host names or IP literals that are exempt
 * from the "publicly reachable" rule of callback_url (HTTPS is still required). Meant for local
 * testing only; the deployed stack leaves it empty.
 */
export const parseAllowedHosts = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map(normaliseHost)
    .filter((host) => host !== '');

/** True when a URL's hostname (as WHATWG URL gives it) is one of the allowed hosts. */
export const isAllowedHost = (hostname: string, allowedHosts: readonly string[]): boolean =>
  allowedHosts.length > 0 && allowedHosts.includes(normaliseHost(hostname));
