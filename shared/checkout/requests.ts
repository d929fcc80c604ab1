import type { CheckoutEndpoint, ConsentRecord, OrderAddress, OrderContact, OrderItem } from '../db/items';
import type { CartLine } from './pricing';
import {
  esimCheckoutSchema,
  iotCheckoutSchema,
  physicalCheckoutSchema,
  type IotCheckoutRequest,
  type PhysicalCheckoutRequest,
} from './schemas';
import { validateBody } from './validate';

/** The buyer fields an order records (spec request names). */
export type OrderBuyerFields = Pick<
  OrderItem,
  | 'customer_email'
  | 'customer_country'
  | 'customer_name'
  | 'customer_phone'
  | 'customer_id'
  | 'sms_opt_in'
  | 'customer_first_name'
  | 'customer_last_name'
  | 'company_name'
  | 'company_registration_number'
  | 'vat_registration_number'
  | 'title'
  | 'purchasing_contact'
  | 'invoice_contact'
  | 'head_user'
  | 'marketing_consent'
  | 'data_processing_consent'
  | 'shipping_address'
  | 'billing_address'
>;

/** A validated checkout request in the form every endpoint shares. */
export interface CheckoutInput {
  endpoint: CheckoutEndpoint;
  lines: CartLine[];
  buyer: OrderBuyerFields;
}

/** Optional text: null, absent or blank is absent. */
const text = (value: string | null | undefined): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;

/** Drops the keys whose value is undefined, so that absent stays absent on the stored order. */
const compact = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;

type RequestAddress = PhysicalCheckoutRequest['shipping_address'] | IotCheckoutRequest['billing_address'];

const address = (value: RequestAddress, name?: string): OrderAddress =>
  compact({
    name,
    line1: value.line1,
    line2: text(value.line2),
    city: value.city,
    region: text(value.region),
    postal_code: value.postal_code,
    country: value.country,
    phone: 'phone' in value ? text(value.phone as string | null | undefined) : undefined,
  });

const contact = (value: { name?: string | null; email?: string | null } | null | undefined): OrderContact | undefined => {
  if (!value) return undefined;
  const result = compact({ name: text(value.name), email: text(value.email) });
  return Object.keys(result).length > 0 ? result : undefined;
};

const consent = (value: ConsentRecord | null | undefined): ConsentRecord | undefined =>
  value ? { agreed: value.agreed, wording: value.wording, given_at: value.given_at } : undefined;

/** The buyer fields every endpoint takes alike: e-mail and country as given, the phone when not blank, the storefront customer id. */
const everyBuyer = (request: Pick<PhysicalCheckoutRequest, 'customer_email' | 'customer_country' | 'customer_phone' | 'customer_id'>) => ({
  customer_email: request.customer_email,
  customer_country: request.customer_country,
  customer_phone: text(request.customer_phone),
  customer_id: request.customer_id,
});

/** A request's cart line as pricing reads it; its SKU is in `skuField` (catalog_sku in B1 and B2, sku in B3). */
const cartLine = <F extends CartLine['skuField']>(line: Record<F, string> & { quantity: number }, skuField: F): CartLine => ({
  skuField,
  sku: line[skuField],
  quantity: line.quantity,
});

/** B1: validates the body; nothing falls back. */
export const esimCheckoutInput = (body: unknown): CheckoutInput => {
  const request = validateBody(esimCheckoutSchema, body);
  return {
    endpoint: 'esim',
    lines: request.cart.map((line) => ({
      ...cartLine(line, 'catalog_sku'),
      ...(typeof line.topup_iccid === 'string' ? { topupIccid: line.topup_iccid } : {}),
    })),
    buyer: compact({ ...everyBuyer(request), customer_name: text(request.customer_name), sms_opt_in: request.sms_opt_in }),
  };
};

/** B2: validates the body; customer_name and shipping_address.name fall back to each other. */
export const physicalCheckoutInput = (body: unknown): CheckoutInput => {
  const request = validateBody(physicalCheckoutSchema, body);
  const shippingName = text(request.shipping_address.name);
  const customerName = text(request.customer_name);
  return {
    endpoint: 'physical',
    lines: request.cart.map((line) => cartLine(line, 'catalog_sku')),
    buyer: compact({
      ...everyBuyer(request),
      customer_name: customerName ?? shippingName,
      shipping_address: address(request.shipping_address, shippingName ?? customerName),
    }),
  };
};

/**
 * B3: validates the body; the shipping name and company_name fall back to first + last
 * name; billing and shipping addresses never default from each other.
 */
export const iotCheckoutInput = (body: unknown): CheckoutInput => {
  const request = validateBody(iotCheckoutSchema, body);
  const fullName = `${request.customer_first_name} ${request.customer_last_name}`;
  return {
    endpoint: 'iot',
    lines: request.cart.map((line) => cartLine(line, 'sku')),
    buyer: compact({
      ...everyBuyer(request),
      customer_first_name: request.customer_first_name,
      customer_last_name: request.customer_last_name,
      company_name: text(request.company_name) ?? fullName,
      company_registration_number: text(request.company_registration_number),
      vat_registration_number: text(request.vat_registration_number),
      title: text(request.title),
      purchasing_contact: contact(request.purchasing_contact),
      invoice_contact: contact(request.invoice_contact),
      head_user: contact(request.head_user),
      sms_opt_in: request.sms_opt_in,
      marketing_consent: consent(request.marketing_consent),
      data_processing_consent: consent(request.data_processing_consent),
      billing_address: address(request.billing_address),
      shipping_address: address(request.shipping_address, text(request.shipping_address.name) ?? fullName),
    }),
  };
};

/** The input adapter of each endpoint. */
export const checkoutInputs: Record<CheckoutEndpoint, (body: unknown) => CheckoutInput> = {
  esim: esimCheckoutInput,
  physical: physicalCheckoutInput,
  iot: iotCheckoutInput,
};
