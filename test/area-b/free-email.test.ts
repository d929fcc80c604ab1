import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { isFreeEmailAddress } from '../../shared/checkout/free-email';
import { freeEmailDomainsBrotli } from '../../shared/checkout/free-email-domains';
import { packageFreeEmailDomains } from '../../scripts/free-email-list';

/** The package's list exactly as the service read it before it was compressed (issue 11). */
const packageList = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('email-providers/all.json'), 'utf8')) as string[];
const reserved = new Set(['example.com', 'example.net', 'example.org']);
const previousDomains = new Set(packageList.map((domain) => domain.toLowerCase()).filter((domain) => !reserved.has(domain)));
const previousVerdict = (email: string): boolean => previousDomains.has(email.slice(email.lastIndexOf('@') + 1).toLowerCase());

describe('the free e-mail list, compressed', () => {
  it('is the email-providers package list as installed (else: npx tsx scripts/free-email-list.ts)', () => {
    const committed = brotliDecompressSync(Buffer.from(freeEmailDomainsBrotli, 'base64')).toString('utf8').split('\n');
    expect(committed).toEqual(packageFreeEmailDomains());
    expect(committed.length).toBe(new Set(packageList.map((domain) => domain.toLowerCase())).size);
  });

  it('gives the verdict of the uncompressed list for every domain of the list, in any case, and for others', () => {
    const others = [
      'ops@initech.example', 'a@sub.gmail.com', 'a@gmail.com.', 'a@', 'no-at-sign', 'a@example.com', 'a@EXAMPLE.NET',
      'a@example.org', 'a@gmail', 'a@mail.ru.example', 'a@no-such-provider.test', 'a@acme.co.uk', 'a@b@gmail.com', 'a@outlook.com ', 'a@xn--80ak6aa92e.com',
    ];
    const addresses = [
      ...packageList.flatMap((domain) => [`buyer@${domain}`, `buyer@${domain.toUpperCase()}`, `Buyer.Name+tag@${domain}`]),
      ...others,
    ];
    const differing = addresses.filter((email) => isFreeEmailAddress(email) !== previousVerdict(email));
    expect(differing).toEqual([]);
    expect(addresses.filter((email) => isFreeEmailAddress(email)).length).toBe(3 * previousDomains.size + ['a@b@gmail.com'].length);
    expect(others.map((email) => [email, isFreeEmailAddress(email)])).toEqual(others.map((email) => [email, email === 'a@b@gmail.com']));
  });
});
