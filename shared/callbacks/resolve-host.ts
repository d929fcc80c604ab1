import type dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { addressRefusal } from './address-policy';

/**
 * node:dns, taken from Node's built-ins when a host is first resolved rather than imported:
 * as an ES module import it makes Node load its DNS module and build the module facade at
 * every cold start (about 4 M instructions of send-sms's load), though only a request with a
 * callback URL, or a forward of one, resolves anything (as node:http in
 * shared/adapters/https/outbound-post.ts).
 */
const systemDns = (): typeof dns => process.getBuiltinModule('node:dns');

/** A resolver: every address a host name resolves to (IPv4 and IPv6). */
export type HostResolver = (hostname: string) => Promise<string[]>;

/** How long a callback host may take to resolve before it counts as not resolving. */
export const resolveTimeoutMs = 3000;

/**
 * Resolves a host name the way the forwarder's connection will (the system resolver,
 * `dns.lookup` with all addresses), giving up after `timeoutMs`.
 */
export const resolveHost: HostResolver = (hostname) =>
  new Promise<string[]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`resolving ${hostname} timed out`)), resolveTimeoutMs);
    timer.unref();
    systemDns().lookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(addresses.map((entry) => entry.address));
    });
  });

/** The error of a connection refused because its host resolved to a non-public address. */
export class RefusedAddressError extends Error {
  readonly code = 'ERR_CALLBACK_ADDRESS_REFUSED';
  constructor(
    readonly address: string,
    readonly reason: string,
  ) {
    super(`address ${address} is not public (${reason})`);
    this.name = 'RefusedAddressError';
  }
}

/**
 * A `lookup` for node:net / node:https that resolves like dns.lookup and then refuses the
 * connection unless EVERY resolved address is public unicast. The socket connects only to an
 * address this function has judged, so a DNS answer that changed since callback_url was
 * accepted (DNS rebinding) cannot reach an internal address.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  systemDns().lookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
    if (error) {
      callback(error, '', 0);
      return;
    }
    if (addresses.length === 0) {
      callback(Object.assign(new Error(`${hostname} did not resolve`), { code: 'ENOTFOUND' }), '', 0);
      return;
    }
    for (const entry of addresses) {
      const reason = addressRefusal(entry.address);
      if (reason) {
        callback(new RefusedAddressError(entry.address, reason) as NodeJS.ErrnoException, '', 0);
        return;
      }
    }
    const ofFamily = addresses.filter((entry) => entry.family === options.family);
    const wanted = ofFamily.length > 0 ? ofFamily : addresses;
    if (options.all) {
      (callback as unknown as (error: null, addresses: dns.LookupAddress[]) => void)(null, wanted);
      return;
    }
    const first = wanted[0]!;
    callback(null, first.address, first.family);
  });
};
