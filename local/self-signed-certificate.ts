import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/** A certificate and its private key, both PEM. */
export interface SelfSignedCertificate {
  cert: string;
  key: string;
}

// DER (ITU-T X.690) encoding of the few ASN.1 types an X.509 certificate needs.
const length = (size: number): Buffer => {
  if (size < 0x80) return Buffer.from([size]);
  const bytes: number[] = [];
  for (let rest = size; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
};
const tlv = (tag: number, ...content: Buffer[]): Buffer => {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
};
const sequence = (...content: Buffer[]) => tlv(0x30, ...content);
const set = (...content: Buffer[]) => tlv(0x31, ...content);
const oid = (dotted: string): Buffer => {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes = [first! * 40 + second!];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let value = arc >> 7; value > 0; value >>= 7) chunk.unshift((value & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
};
/** A random serial number: 16 bytes, positive and minimally encoded (first byte 0x40–0x7f), as DER demands. */
const serialNumber = (): Buffer => {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x3f) | 0x40;
  return tlv(0x02, bytes);
};
const utf8String = (text: string) => tlv(0x0c, Buffer.from(text, 'utf8'));
/** UTCTime (YYMMDDHHMMSSZ), as RFC 5280 wants for dates up to 2049. */
const utcTime = (date: Date) => tlv(0x17, Buffer.from(`${date.toISOString().replace(/[-:T]/g, '').slice(2, 14)}Z`, 'ascii'));
const bitString = (bytes: Buffer) => tlv(0x03, Buffer.from([0]), bytes);
const octetString = (bytes: Buffer) => tlv(0x04, bytes);
const explicit = (tag: number, content: Buffer) => tlv(0xa0 | tag, content);
const ipv4Bytes = (address: string) => Buffer.from(address.split('.').map(Number));

const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
const commonName = '2.5.4.3';
const subjectAltName = '2.5.29.17';
const basicConstraints = '2.5.29.19';

const pem = (label: string, der: Buffer): string =>
  `-----BEGIN ${label}-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END ${label}-----\n`;

/**
 * A self-signed X.509 v3 certificate (ECDSA P-256, SHA-256) for `localhost` and the IPv4
 * addresses given, valid from a minute ago for `days` days, made with node:crypto alone: no
 * openssl binary and no dependency, so `npm start` can serve HTTPS on any machine. It marks
 * itself a CA (basicConstraints), as `openssl req -x509` does, so that it can be trusted
 * directly as its own anchor (the local runtime adds it to the CAs its outbound calls trust).
 */
export const selfSignedCertificate = (options: { commonName: string; ipAddresses?: string[]; days?: number }): SelfSignedCertificate => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = sequence(set(sequence(oid(commonName), utf8String(options.commonName))));
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(notBefore.getTime() + (options.days ?? 30) * 86_400_000);
  const alternativeNames = sequence(
    tlv(0x82, Buffer.from('localhost', 'ascii')),
    ...(options.ipAddresses ?? []).map((address) => tlv(0x87, ipv4Bytes(address))),
  );
  const extensions = sequence(
    sequence(oid(subjectAltName), octetString(alternativeNames)),
    sequence(oid(basicConstraints), tlv(0x01, Buffer.from([0xff])), octetString(sequence(tlv(0x01, Buffer.from([0xff]))))),
  );
  const toBeSigned = sequence(
    explicit(0, tlv(0x02, Buffer.from([2]))),
    serialNumber(),
    ecdsaWithSha256,
    name,
    sequence(utcTime(notBefore), utcTime(notAfter)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, extensions),
  );
  const signature = sign('sha256', toBeSigned, privateKey);
  const certificate = sequence(toBeSigned, ecdsaWithSha256, bitString(signature));
  return { cert: pem('CERTIFICATE', certificate), key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
};
