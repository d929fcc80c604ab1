import { describe, expect, it } from 'vitest';
import { countryCodes, isCountryCode } from '../../shared/checkout/countries';
import { isFreeEmailAddress } from '../../shared/checkout/free-email';
import { canonicalJson } from '../../shared/idempotency/idempotency';
import { formatBasisPoints, formatPence, percentOfPence, toPence } from '../../shared/checkout/money';
import { rateTableTaxCalculator } from '../../shared/checkout/tax';
import { vatRateBasisPoints, vatRates } from '../../shared/checkout/vat-rates';
import { bearerToken, tokensMatch } from '../../shared/http/service-token';
import { stripeUrl } from '../../shared/adapters/stripe/stripe-api';

describe('money in pence', () => {
  it('parses decimal strings exactly and formats two decimals', () => {
    expect(toPence('0.10') + toPence('0.20')).toBe(30);
    expect(formatPence(toPence('0.10') + toPence('0.20'))).toBe('0.30');
    expect(toPence('12')).toBe(1200);
    expect(toPence('12.5')).toBe(1250);
    expect(toPence('9.99') * 3).toBe(2997);
    expect(formatPence(0)).toBe('0.00');
    expect(formatPence(7)).toBe('0.07');
    expect(formatPence(216000)).toBe('2160.00');
  });

  it('refuses anything that is not a GBP decimal amount', () => {
    for (const bad of ['1.234', '-1', '1e3', '', ' 1', '1.']) expect(() => toPence(bad)).toThrow('not a GBP decimal amount');
    expect(() => formatPence(1.5)).toThrow();
  });

  it('rounds a percentage half-up to the penny', () => {
    expect(percentOfPence(300, 2550)).toBe(77); // 76.5
    expect(percentOfPence(50, 1900)).toBe(10); // 9.5
    expect(percentOfPence(250, 2000)).toBe(50);
    expect(percentOfPence(2997, 2000)).toBe(599); // 599.4
    expect(percentOfPence(999, 2300)).toBe(230); // 229.77
    expect(percentOfPence(1, 2000)).toBe(0);
    expect(percentOfPence(123_456_789, 2550)).toBe(31_481_481); // 31 481 481.195
    expect(percentOfPence(1000, 0)).toBe(0);
  });

  it('formats rates without trailing zeros', () => {
    expect([2000, 2550, 1900, 0, 1705].map(formatBasisPoints)).toEqual(['20', '25.5', '19', '0', '17.05']);
  });
});

describe('VAT rate table', () => {
  it('has GB at 20% and the 27 EU member states at their standard rates, dated and sourced', () => {
    expect(vatRates.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(vatRates.source).toContain('European Commission');
    expect(Object.keys(vatRates.europeanUnion).sort()).toEqual(
      'AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK'.split(' '),
    );
    const expected: Record<string, number> = { GB: 2000, DE: 1900, FR: 2000, IE: 2300, FI: 2550, EE: 2400, RO: 2100, SK: 2300, HU: 2700, LU: 1700, MT: 1800 };
    for (const [country, rate] of Object.entries(expected)) expect(vatRateBasisPoints(country), country).toBe(rate);
  });

  it('charges 0% anywhere else', () => {
    for (const country of ['US', 'CH', 'NO', 'JE', 'GG', 'AU', 'JP']) expect(vatRateBasisPoints(country), country).toBe(0);
  });

  it('only lists real country codes', () => {
    for (const country of [...Object.keys(vatRates.unitedKingdom), ...Object.keys(vatRates.europeanUnion)]) {
      expect(isCountryCode(country), country).toBe(true);
    }
  });

  it('computes tax on the subtotal through the rate-table adapter', async () => {
    await expect(rateTableTaxCalculator().calculate({ country: 'FI', subtotalPence: 300 })).resolves.toEqual({ rate: '25.5', taxPence: 77 });
    await expect(rateTableTaxCalculator().calculate({ country: 'US', subtotalPence: 1200 })).resolves.toEqual({ rate: '0', taxPence: 0 });
  });
});

describe('country codes', () => {
  it('holds the 249 officially assigned ISO 3166-1 alpha-2 codes, each a region known to ICU', () => {
    expect(countryCodes.size).toBe(249);
    const names = new Intl.DisplayNames(['en'], { type: 'region' });
    for (const code of countryCodes) expect(names.of(code), code).not.toBe(code);
    for (const notAssigned of ['UK', 'EU', 'XK', 'XX', 'ZZ', 'gb']) expect(isCountryCode(notAssigned), notAssigned).toBe(false);
  });
});

describe('small helpers', () => {
  it('knows free e-mail providers, case-insensitively', () => {
    expect(isFreeEmailAddress('someone@gmail.com')).toBe(true);
    expect(isFreeEmailAddress('someone@GoogleMail.COM')).toBe(true);
    expect(isFreeEmailAddress('ops@initech.example')).toBe(false);
    // RFC 2606 example domains are nobody's provider (the package's list carries example.com).
    expect(isFreeEmailAddress('sam@example.com')).toBe(false);
  });

  it('compares service tokens in constant time and reads bearer tokens', () => {
    expect(tokensMatch('abc', 'abc')).toBe(true);
    expect(tokensMatch('abc', 'abcd')).toBe(false);
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer   abc ')).toBe('abc');
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });

  it('resolves Stripe API paths against STRIPE_API_BASE (its path a prefix), else Stripe itself', () => {
    const url = (base: string | undefined) => stripeUrl(base, '/v1/payment_intents').href;
    expect(url('http://127.0.0.1:12111')).toBe('http://127.0.0.1:12111/v1/payment_intents');
    expect(url('https://stripe.internal.example')).toBe('https://stripe.internal.example/v1/payment_intents');
    expect(url('http://[::1]:8080/')).toBe('http://[::1]:8080/v1/payment_intents');
    expect(url('http://127.0.0.1:3000/_local/stripe')).toBe('http://127.0.0.1:3000/_local/stripe/v1/payment_intents');
    expect(url('http://127.0.0.1:3000/_local/stripe/')).toBe('http://127.0.0.1:3000/_local/stripe/v1/payment_intents');
    expect(url(undefined)).toBe('https://api.stripe.com/v1/payment_intents');
    expect(url('')).toBe('https://api.stripe.com/v1/payment_intents');
  });

  it('canonicalises JSON bodies for idempotency', () => {
    expect(canonicalJson({ b: [1, { d: 2, c: null }], a: 'x' })).toBe('{"a":"x","b":[1,{"c":null,"d":2}]}');
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
  });
});
