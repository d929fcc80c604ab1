import freeProviderDomains from 'email-providers/all.json' with { type: 'json' };

/**
 * The IANA-reserved example domains (RFC 2606). They are nobody's mailbox provider, but the
 * list below carries example.com; demo and test data use them for consumer and business
 * buyers alike, so they are not treated as free providers.
 */
const reservedExampleDomains = new Set(['example.com', 'example.net', 'example.org']);

/**
 * Domains of free and personal e-mail providers (gmail.com, outlook.com, gmx.de, ...), from
 * the `email-providers` npm package (a maintained list shipped as data inside the package;
 * it works offline and downloads nothing at install or run time).
 */
const domains: ReadonlySet<string> = new Set(
  (freeProviderDomains as string[]).map((domain) => domain.toLowerCase()).filter((domain) => !reservedExampleDomains.has(domain)),
);

/** True when the e-mail address is on a known free or personal e-mail provider's domain. */
export const isFreeEmailAddress = (email: string): boolean => {
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return domains.has(domain);
};
