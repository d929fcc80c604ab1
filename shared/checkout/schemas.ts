import * as v from 'valibot';
import { isCarriableText } from '../text/characters';
import { isCountryCode } from './countries';

/**
 * The request bodies of the three checkouts (spec B1, B2, B3) as valibot schemas. They are
 * the single source of both the validation and the field documentation in docs/area-b.md
 * (rendered by scripts/checkout-schema-docs.ts). Every message is a phrase that follows the
 * field's path, so an error's detail reads `cart[2].quantity must be an integer from 1 to 10`.
 *
 * Conventions: unknown fields are ignored; an optional field may be omitted or null; a
 * required text must not be blank. Which error code a failing field gives is decided by
 * ./validate.ts from the field's path.
 */

/** Limits of the spec's "Request limits" table, plus the ones this service adds. */
export const limits = {
  cartLines: { min: 1, max: 20 },
  quantity: { min: 1, max: 10 },
  customerName: 200,
  phone: 32,
  firstOrLastName: 100,
  companyName: 200,
  title: 200,
  registrationNumber: 64,
  addressName: 200,
  addressLine: 200,
  cityOrRegion: 100,
  postalCode: 20,
  iccidDigits: 20,
  /** Not in the spec: bounds what is stored. */
  email: 254,
  sku: 100,
  contactName: 200,
  consentWording: 10_000,
} as const;

const notBlank = (value: string): boolean => value.trim() !== '';

/** The phrase of a text that is not well-formed (shared/text/characters.ts). */
export const wellFormedPhrase =
  'must be well-formed Unicode text without U+FFFE, U+FFFF or control characters other than tab and line breaks';

/**
 * Every text field is carriable (issue #10): no lone surrogate (DynamoDB would store it as
 * `?`, e-mails and SMS would carry garbage), no U+FFFE / U+FFFF, no control character other
 * than tab and line breaks. Judged after the field's other rules, so a blank or over-long
 * value is reported as such. scripts/checkout-schema-docs.ts renders it as "well-formed text".
 */
const wellFormed = () => v.check(isCarriableText, wellFormedPhrase);

/** A required string, not blank, of at most `max` characters. */
const requiredText = (max: number, description: string) => {
  const phrase = `must be a non-empty string of at most ${max} characters`;
  return v.pipe(v.string(phrase), v.check(notBlank, phrase), v.maxLength(max, phrase), wellFormed(), v.description(description));
};

/** An optional string of at most `max` characters; omitted, null or blank means absent. */
const optionalText = (max: number, description: string) =>
  v.optional(
    v.nullable(
      v.pipe(
        v.string(`must be a string of at most ${max} characters`),
        v.maxLength(max, `must be a string of at most ${max} characters`),
        wellFormed(),
        v.description(description),
      ),
    ),
  );

const emailPhrase = `must be an e-mail address of at most ${limits.email} characters`;

/** An e-mail address. */
const email = (description: string) =>
  v.pipe(v.string(emailPhrase), v.maxLength(limits.email, emailPhrase), v.email(emailPhrase), v.description(description));

const countryPhrase = 'must be a two-letter ISO 3166-1 alpha-2 country code';

/** A two-letter ISO 3166-1 alpha-2 code in either case, upper-cased. */
const country = (description: string) =>
  v.pipe(
    v.string(countryPhrase),
    v.regex(/^[A-Za-z]{2}$/, countryPhrase),
    v.toUpperCase(),
    v.check(isCountryCode, countryPhrase),
    v.description(description),
  );

const quantityPhrase = `must be an integer from ${limits.quantity.min} to ${limits.quantity.max}`;

/** A line quantity: an integer from 1 to 10. */
const quantity = v.pipe(
  v.number(quantityPhrase),
  v.integer(quantityPhrase),
  v.minValue(limits.quantity.min, quantityPhrase),
  v.maxValue(limits.quantity.max, quantityPhrase),
  v.description('Units of the plan.'),
);

const skuField = (description: string) => requiredText(limits.sku, description);

const iccidPhrase = `must be an ICCID of 1 to ${limits.iccidDigits} digits`;

/** A cart of 1 to 20 lines. */
const cart = <T extends v.GenericSchema>(line: T, description: string) => {
  const phrase = `must be an array of ${limits.cartLines.min} to ${limits.cartLines.max} cart lines`;
  return v.pipe(
    v.array(line, phrase),
    v.minLength(limits.cartLines.min, phrase),
    v.maxLength(limits.cartLines.max, phrase),
    v.description(description),
  );
};

/** "Only the JSON boolean true counts as consent": true stays true, false stays false, anything else is no answer. */
const smsOptIn = (description: string) =>
  v.optional(
    v.pipe(
      v.unknown(),
      v.transform((value): boolean | undefined => (value === true ? true : value === false ? false : undefined)),
      v.description(description),
    ),
  );

/**
 * The storefront's customer id never gates checkout: a string of up to 255 well-formed
 * characters is kept (it becomes a GSI1 key of the account), anything else ignored.
 */
const customerId = v.optional(
  v.pipe(
    v.unknown(),
    v.transform((value): string | undefined =>
      typeof value === 'string' && value.trim() !== '' && value.length <= 255 && isCarriableText(value) ? value : undefined,
    ),
    v.description(
      'Storefront customer id (gid://<platform>/Customer/<id>). Never gates checkout: a value that is not a string of 1 to 255 well-formed characters is ignored, not refused.',
    ),
  ),
);

const addressEntries = {
  line1: requiredText(limits.addressLine, 'First address line.'),
  line2: optionalText(limits.addressLine, 'Second address line.'),
  city: requiredText(limits.cityOrRegion, 'City or town.'),
  region: optionalText(limits.cityOrRegion, 'State, county or province.'),
  postal_code: requiredText(limits.postalCode, 'Postal code.'),
  country: country('Two-letter ISO 3166-1 alpha-2 code, either case, stored upper-case.'),
};

/** The shipping address of B2 and B3. */
const shippingAddress = v.object(
  {
    name: optionalText(limits.addressName, 'Recipient name; see the fallback rules.'),
    ...addressEntries,
    phone: optionalText(limits.phone, 'Delivery contact phone; may differ from customer_phone.'),
  },
  'must be an address object',
);

/** The billing address of B3: the shipping shape without name and phone. */
const billingAddress = v.object(addressEntries, 'must be an address object');

const isoTimestampPhrase = 'must be an ISO-8601 timestamp with a time zone';

/** A consent record (marketing_consent, data_processing_consent), recorded exactly as given. */
const consent = (mustAgree: boolean) =>
  v.object(
    {
      agreed: mustAgree
        ? v.pipe(v.literal(true, 'must be true'), v.description('Must be the JSON boolean true.'))
        : v.pipe(v.boolean('must be a boolean'), v.description('Whether the buyer agreed.')),
      wording: requiredText(limits.consentWording, 'The exact consent copy shown to the buyer.'),
      given_at: v.pipe(
        v.string(isoTimestampPhrase),
        v.isoTimestamp(isoTimestampPhrase),
        v.check((value) => !Number.isNaN(Date.parse(value)), isoTimestampPhrase),
        v.description('ISO-8601 time of agreement with a time zone (Z or ±hh:mm).'),
      ),
    },
    'must be a consent object',
  );

/** A contact (purchasing_contact, invoice_contact, head_user). */
const contact = (description: string) =>
  v.optional(
    v.nullable(
      v.pipe(
        v.object(
          {
            name: optionalText(limits.contactName, 'Contact name.'),
            email: v.optional(v.nullable(email('Contact e-mail.'))),
          },
          'must be a contact object',
        ),
        v.description(description),
      ),
    ),
  );

const bodyPhrase = 'must be a JSON object';

/** B1 `POST /api/v1/checkout`: eSIM checkout. */
export const esimCheckoutSchema = v.object(
  {
    cart: cart(
      v.pipe(
        v.object(
          {
            catalog_sku: skuField('SKU of a published Business Travel, Business Top-up, Travel or Travel Top-up plan.'),
            quantity,
            topup_iccid: v.optional(
              v.nullable(
                v.pipe(v.string(iccidPhrase), v.regex(/^\d{1,20}$/, iccidPhrase), v.description(
                  'Marks the line as a top-up of this already-owned eSIM; needs quantity 1 and a *_topup plan.',
                )),
              ),
            ),
          },
          'must be a cart line object',
        ),
        v.forward(
          v.partialCheck(
            [['quantity'], ['topup_iccid']],
            (line) => line.topup_iccid === undefined || line.topup_iccid === null || line.quantity === 1,
            'must be exactly 1 for a top-up line',
          ),
          ['quantity'],
        ),
        v.description('A top-up line (with topup_iccid) must have quantity 1.'),
      ),
      'eSIM cart lines.',
    ),
    customer_email: email('Buyer e-mail; the only field that gates checkout by itself. Compared case-insensitively.'),
    customer_country: country('Buyer country for VAT: two-letter ISO 3166-1 alpha-2 code, either case, stored upper-case.'),
    customer_name: optionalText(limits.customerName, 'For account creation and e-mail personalisation only.'),
    customer_phone: optionalText(limits.phone, 'E.164 with country code; stored as given, not format-checked.'),
    sms_opt_in: smsOptIn(
      'Only the JSON boolean true is consent; false is an explicit no; any other value is accepted and recorded as no answer.',
    ),
    customer_id: customerId,
  },
  bodyPhrase,
);

/** B2 `POST /api/v1/physical-checkout`: physical SIM checkout. */
export const physicalCheckoutSchema = v.pipe(
  v.object(
    {
      cart: cart(
        v.object(
          {
            catalog_sku: skuField('SKU of a published physical SIM plan.'),
            quantity,
          },
          'must be a cart line object',
        ),
        'Physical SIM cart lines.',
      ),
      customer_email: email('Buyer e-mail. Compared case-insensitively.'),
      customer_country: country('Buyer country for VAT: two-letter ISO 3166-1 alpha-2 code, either case, stored upper-case.'),
      customer_name: optionalText(
        limits.customerName,
        'Falls back to shipping_address.name, or the reverse; at least one of the two is required.',
      ),
      customer_phone: optionalText(limits.phone, 'Stored as given; currently unused for SMS on this flow.'),
      customer_id: customerId,
      shipping_address: v.pipe(shippingAddress, v.description('Where the SIMs are posted.')),
    },
    bodyPhrase,
  ),
  v.forward(
    v.partialCheck(
      [['customer_name'], ['shipping_address', 'name']],
      (input) =>
        (typeof input.customer_name === 'string' && notBlank(input.customer_name)) ||
        (typeof input.shipping_address?.name === 'string' && notBlank(input.shipping_address.name)),
      'is required when customer_name is absent (at least one of the two names is required)',
    ),
    ['shipping_address', 'name'],
  ),
);

/** B3 `POST /api/v1/iot-physical-checkout`: IoT contract checkout. */
export const iotCheckoutSchema = v.object(
  {
    cart: cart(
      v.object(
        {
          sku: skuField('SKU of a published IoT contract plan.'),
          quantity,
        },
        'must be a cart line object',
      ),
      'IoT contract cart lines.',
    ),
    customer_email: email('Buyer e-mail. Compared case-insensitively.'),
    customer_country: country('Buyer country for VAT: two-letter ISO 3166-1 alpha-2 code, either case, stored upper-case.'),
    customer_first_name: requiredText(limits.firstOrLastName, 'Buyer first name.'),
    customer_last_name: requiredText(limits.firstOrLastName, 'Buyer last name.'),
    company_name: optionalText(limits.companyName, 'Reseller account and CRM company name; falls back to first + last name.'),
    company_registration_number: optionalText(limits.registrationNumber, 'Company registration number.'),
    vat_registration_number: optionalText(limits.registrationNumber, 'VAT registration number (recorded; VAT is still charged by country).'),
    title: optionalText(limits.title, "The buyer's job title."),
    purchasing_contact: contact('May be a different person from the buyer.'),
    invoice_contact: contact('Invoice recipient.'),
    head_user: contact("Primary user at the buyer's company."),
    customer_phone: optionalText(limits.phone, 'Gates the SMS receipt together with sms_opt_in.'),
    sms_opt_in: smsOptIn('Default false: only the JSON boolean true is consent; never inferred from a phone number.'),
    customer_id: customerId,
    marketing_consent: v.optional(
      v.nullable(v.pipe(consent(false), v.description('Recorded exactly as given.'))),
    ),
    data_processing_consent: v.pipe(consent(true), v.description('Required, agreed true, with wording and given_at.')),
    billing_address: v.pipe(billingAddress, v.description('Separate from shipping_address; neither defaults from the other.')),
    shipping_address: v.pipe(
      shippingAddress,
      v.description('name falls back to customer_first_name + " " + customer_last_name.'),
    ),
  },
  bodyPhrase,
);

/** A validated B2 body. */
export type PhysicalCheckoutRequest = v.InferOutput<typeof physicalCheckoutSchema>;
/** A validated B3 body. */
export type IotCheckoutRequest = v.InferOutput<typeof iotCheckoutSchema>;
