import type net from 'node:net';

/**
 * node:net's address checks, from Node's built-ins when an address is first judged rather than
 * imported: the import builds node:net's module facade at every cold start of the functions that
 * carry the policy (about 1 M instructions), though only a request with a callback URL, or a
 * forward of one, judges an address (as node:dns in ./resolve-host.ts).
 */
const netChecks = (): typeof net => process.getBuiltinModule('node:net');
const isIPv4 = (text: string): boolean => netChecks().isIPv4(text);

/** node:net's `isIPv6` (through `netChecks`, for ./allowed-hosts.ts too). */
export const isIPv6 = (text: string): boolean => netChecks().isIPv6(text);

/** An IP address or range base as a number of `width` bits (32 for IPv4, 128 for IPv6). */
interface Address {
  value: bigint;
  width: 32 | 128;
}

/** A CIDR range: the address it starts at and how many leading bits every member shares. */
interface Cidr extends Address {
  prefix: number;
}

/** A dotted quad already checked by `isIPv4`, as its 32 bits. */
const ipv4Bits = (text: string): bigint =>
  text.split('.').reduce((bits, part) => (bits << 8n) | BigInt(Number(part)), 0n);

/**
 * An IPv6 address already checked by `isIPv6` (no zone id), as its 128 bits: `::` stands for
 * the missing zero groups, and a trailing dotted quad for the last two.
 */
const ipv6Bits = (text: string): bigint => {
  let hex = text;
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const quad = ipv4Bits(text.slice(lastColon + 1));
    hex = `${text.slice(0, lastColon + 1)}${(quad >> 16n).toString(16)}:${(quad & 0xffffn).toString(16)}`;
  }
  const [left = '', right] = hex.split('::');
  const leftGroups = left === '' ? [] : left.split(':');
  const rightGroups = right === undefined || right === '' ? [] : right.split(':');
  const zeros = right === undefined ? [] : Array<string>(8 - leftGroups.length - rightGroups.length).fill('0');
  return [...leftGroups, ...zeros, ...rightGroups].reduce((bits, group) => (bits << 16n) | BigInt(`0x${group}`), 0n);
};

const cidr = (text: string): Cidr => {
  const [base = '', prefix = ''] = text.split('/');
  return isIPv4(base)
    ? { value: ipv4Bits(base), width: 32, prefix: Number(prefix) }
    : { value: ipv6Bits(base), width: 128, prefix: Number(prefix) };
};

/** True when the address lies in the range (same family, same leading `prefix` bits). */
const inRange = (address: Address, range: Cidr): boolean => {
  if (address.width !== range.width) return false;
  const shift = BigInt(range.width - range.prefix);
  return address.value >> shift === range.value >> shift;
};

/**
 * A range (or a table of them) parsed when an address is first judged, not at load: parsing
 * them (BigInt arithmetic, node:net's checks) ran at every cold start of the functions that
 * carry the policy, though only a request with a callback URL, or a forward, judges an address.
 */
const parsedOnUse = <T>(parse: () => T): (() => T) => {
  let parsed: T | undefined;
  return () => (parsed ??= parse());
};

/**
 * IPv4 ranges that are not public unicast (IANA IPv4 Special-Purpose Address Registry), each
 * with the reason logged and answered when an address falls in it. The first match names it.
 */
const forbiddenIpv4 = parsedOnUse((): [string, Cidr][] => [
  ['unspecified ("this network")', cidr('0.0.0.0/8')],
  ['private', cidr('10.0.0.0/8')],
  ['shared address space (CGNAT)', cidr('100.64.0.0/10')],
  ['loopback', cidr('127.0.0.0/8')],
  ['link-local (cloud metadata)', cidr('169.254.0.0/16')],
  ['private', cidr('172.16.0.0/12')],
  ['IETF protocol assignments', cidr('192.0.0.0/24')],
  ['documentation (TEST-NET-1)', cidr('192.0.2.0/24')],
  ['6to4 relay anycast', cidr('192.88.99.0/24')],
  ['private', cidr('192.168.0.0/16')],
  ['benchmarking', cidr('198.18.0.0/15')],
  ['documentation (TEST-NET-2)', cidr('198.51.100.0/24')],
  ['documentation (TEST-NET-3)', cidr('203.0.113.0/24')],
  ['multicast', cidr('224.0.0.0/4')],
  ['broadcast', cidr('255.255.255.255/32')],
  ['reserved', cidr('240.0.0.0/4')],
]);

/** IPv6 ranges whose last 32 bits (or, for 6to4, bits 16-47) carry an IPv4 address. */
const ipv4Mapped = parsedOnUse(() => cidr('::ffff:0:0/96'));
const nat64WellKnown = parsedOnUse(() => cidr('64:ff9b::/96'));
const sixToFour = parsedOnUse(() => cidr('2002::/16'));

/** Global unicast: the only IPv6 space that can be public. */
const globalUnicast = parsedOnUse(() => cidr('2000::/3'));

/** Names for the non-public IPv6 space, for the refusal reason. */
const namedIpv6 = parsedOnUse((): [string, Cidr][] => [
  ['unspecified', cidr('::/128')],
  ['loopback', cidr('::1/128')],
  ['IPv4-translated (RFC 6145)', cidr('::ffff:0:0:0/96')],
  ['IPv4-compatible (deprecated)', cidr('::/96')],
  ['local-use NAT64', cidr('64:ff9b:1::/48')],
  ['discard-only', cidr('100::/64')],
  ['unique local', cidr('fc00::/7')],
  ['link-local', cidr('fe80::/10')],
  ['site-local (deprecated)', cidr('fec0::/10')],
  ['multicast', cidr('ff00::/8')],
]);

/** Non-public space inside 2000::/3. */
const forbiddenGlobalIpv6 = parsedOnUse((): [string, Cidr][] => [
  ['documentation', cidr('2001:db8::/32')],
  ['Teredo', cidr('2001::/32')],
  ['IETF protocol assignments', cidr('2001::/23')],
  ['documentation', cidr('3fff::/20')],
]);

const ipv4Refusal = (address: Address): string | undefined =>
  forbiddenIpv4().find(([, range]) => inRange(address, range))?.[0];

/** The IPv4 address an IPv6 address carries, `shift` bits above its lowest bit. */
const embeddedIpv4 = (address: Address, shift: bigint): Address => ({
  value: (address.value >> shift) & 0xffffffffn,
  width: 32,
});

const ipv6Refusal = (address: Address): string | undefined => {
  const embedded: [string, Cidr, bigint][] = [
    ['IPv4-mapped', ipv4Mapped(), 0n],
    ['NAT64', nat64WellKnown(), 0n],
    ['6to4', sixToFour(), 80n],
  ];
  for (const [form, range, shift] of embedded) {
    if (!inRange(address, range)) continue;
    const reason = ipv4Refusal(embeddedIpv4(address, shift));
    return reason ? `${form} ${reason}` : undefined;
  }
  if (!inRange(address, globalUnicast())) {
    return namedIpv6().find(([, range]) => inRange(address, range))?.[0] ?? 'reserved (outside global unicast)';
  }
  return forbiddenGlobalIpv6().find(([, range]) => inRange(address, range))?.[0];
};

/**
 * Why an IP address may not receive a delivery receipt, or undefined when it is public
 * unicast. Refused: loopback, private, link-local (the cloud metadata address included), CGNAT,
 * multicast, unspecified, broadcast, reserved, documentation and benchmarking ranges, IPv6
 * unique-local and site-local, anything outside IPv6 global unicast, Teredo, and IPv4 addresses
 * of those kinds wrapped in IPv6 (IPv4-mapped, NAT64 64:ff9b::/96, 6to4). Anything that is not
 * an IP address in canonical notation is refused too: this judges resolved addresses and URL
 * hosts already normalised by the WHATWG URL parser, never raw user text.
 */
export const addressRefusal = (address: string): string | undefined => {
  const text = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(text)) return ipv4Refusal({ value: ipv4Bits(text), width: 32 });
  if (text.includes(':') && isIPv6(text)) {
    if (text.includes('%')) return 'scoped (zone id)';
    return ipv6Refusal({ value: ipv6Bits(canonicalIpv6(text)), width: 128 });
  }
  return 'not an IP address';
};

/** The WHATWG URL serialisation of an IPv6 address (hex groups only, compressed, RFC 5952). */
export const canonicalIpv6 = (text: string): string => {
  try {
    return new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return text;
  }
};

/** True when the text is an IP literal (IPv4 dotted quad or IPv6, brackets allowed). */
export const isIpLiteral = (host: string): boolean => {
  const text = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return isIPv4(text) || (text.includes(':') && isIPv6(text));
};
