import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

const cidr = (text: string): Cidr => ipaddr.parseCIDR(text);

/**
 * IPv4 ranges that are not public unicast (IANA IPv4 Special-Purpose Address Registry), each
 * with the reason logged and answered when an address falls in it. The first match names it.
 */
const forbiddenIpv4: [string, Cidr][] = [
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
];

/** IPv6 ranges whose last 32 bits (or, for 6to4, bits 16-47) carry an IPv4 address. */
const ipv4Mapped = cidr('::ffff:0:0/96');
const nat64WellKnown = cidr('64:ff9b::/96');
const sixToFour = cidr('2002::/16');

/** Global unicast: the only IPv6 space that can be public. */
const globalUnicast = cidr('2000::/3');

/** Names for the non-public IPv6 space, for the refusal reason. */
const namedIpv6: [string, Cidr][] = [
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
];

/** Non-public space inside 2000::/3. */
const forbiddenGlobalIpv6: [string, Cidr][] = [
  ['documentation', cidr('2001:db8::/32')],
  ['Teredo', cidr('2001::/32')],
  ['IETF protocol assignments', cidr('2001::/23')],
  ['documentation', cidr('3fff::/20')],
];

const ipv4Refusal = (address: ipaddr.IPv4): string | undefined =>
  forbiddenIpv4.find(([, range]) => address.match(range))?.[0];

const embeddedIpv4 = (address: ipaddr.IPv6, firstPart: number): ipaddr.IPv4 => {
  const high = address.parts[firstPart]!;
  const low = address.parts[firstPart + 1]!;
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
};

const ipv6Refusal = (address: ipaddr.IPv6): string | undefined => {
  const embedded: [string, Cidr, number][] = [
    ['IPv4-mapped', ipv4Mapped, 6],
    ['NAT64', nat64WellKnown, 6],
    ['6to4', sixToFour, 1],
  ];
  for (const [form, range, firstPart] of embedded) {
    if (!address.match(range)) continue;
    const reason = ipv4Refusal(embeddedIpv4(address, firstPart));
    return reason ? `${form} ${reason}` : undefined;
  }
  if (!address.match(globalUnicast)) {
    return namedIpv6.find(([, range]) => address.match(range))?.[0] ?? 'reserved (outside global unicast)';
  }
  return forbiddenGlobalIpv6.find(([, range]) => address.match(range))?.[0];
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
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipv4Refusal(ipaddr.IPv4.parse(text));
  if (text.includes(':') && ipaddr.IPv6.isValid(text)) {
    if (text.includes('%')) return 'scoped (zone id)';
    // Canonical form first: ipaddr.js reads `::a.b.c.d` (IPv4-compatible) as IPv4-mapped.
    return ipv6Refusal(ipaddr.IPv6.parse(canonicalIpv6(text)));
  }
  return 'not an IP address';
};

/** The WHATWG URL serialisation of an IPv6 address (hex groups only, compressed). */
const canonicalIpv6 = (text: string): string => {
  try {
    return new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return text;
  }
};

/** True when the address is public unicast (see addressRefusal). */
export const isPublicAddress = (address: string): boolean => addressRefusal(address) === undefined;

/** True when the text is an IP literal (IPv4 dotted quad or IPv6, brackets allowed). */
export const isIpLiteral = (host: string): boolean => {
  const text = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return ipaddr.IPv4.isValidFourPartDecimal(text) || (text.includes(':') && ipaddr.IPv6.isValid(text));
};
