import { brotliDecompressSync } from 'node:zlib';
import { freeEmailDomainsBrotli } from './free-email-domains';

/**
 * The IANA-reserved example domains (RFC 2606). They are nobody's mailbox provider, but the
 * list below carries example.com; demo and test data use them for consumer and business
 * buyers alike, so they are not treated as free providers.
 */
const reservedExampleDomains = new Set(['example.com', 'example.net', 'example.org']);

/**
 * Domains of free and personal e-mail providers (gmail.com, outlook.com, gmx.de, ...), from
 * the `email-providers` npm package (a maintained list shipped as data inside the package;
 * it works offline and downloads nothing at install or run time), kept compressed in
 * ./free-email-domains.ts (scripts/free-email-list.ts) and decoded on the first check: the
 * list as a JSON array was 134.5 KiB of every checkout bundle, evaluated at every cold start.
 */
let domains: ReadonlySet<string> | undefined;

const freeDomains = (): ReadonlySet<string> => {
  domains ??= new Set(
    brotliDecompressSync(Buffer.from(freeEmailDomainsBrotli, 'base64'))
      .toString('utf8')
      .split('\n')
      .filter((domain) => !reservedExampleDomains.has(domain)),
  );
  return domains;
};

/** True when the e-mail address is on a known free or personal e-mail provider's domain. */
export const isFreeEmailAddress = (email: string): boolean => {
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return freeDomains().has(domain);
};
