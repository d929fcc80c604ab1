/**
 * The emulator's PaymentIntents: their object as Stripe's API (test mode) shows it and the
 * changes of state that Stripe's test cards cause. Kept in memory, per emulator.
 */
import { randomId, stripeId } from './ids';
import { parameterMissing, resourceMissing, unexpectedState, invalidValue, StripeEmulatorError } from './errors';

/** A PaymentIntent as Stripe's API returns it (the fields the emulator keeps). */
export interface PaymentIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_capturable: number;
  amount_details: { tip: Record<string, never> };
  amount_received: number;
  application: null;
  application_fee_amount: null;
  automatic_payment_methods: { allow_redirects: 'always'; enabled: true } | null;
  canceled_at: number | null;
  cancellation_reason: string | null;
  capture_method: 'automatic_async';
  client_secret: string;
  confirmation_method: 'automatic';
  created: number;
  currency: string;
  customer: null;
  description: string | null;
  last_payment_error: Record<string, unknown> | null;
  latest_charge: string | null;
  livemode: false;
  metadata: Record<string, string>;
  next_action: null;
  on_behalf_of: null;
  payment_method: string | null;
  payment_method_configuration_details: null;
  payment_method_options: { card: { installments: null; mandate_options: null; network: null; request_three_d_secure: 'automatic' } };
  payment_method_types: string[];
  processing: null;
  receipt_email: string | null;
  review: null;
  setup_future_usage: null;
  shipping: null;
  source: null;
  statement_descriptor: string | null;
  statement_descriptor_suffix: null;
  status: 'requires_payment_method' | 'requires_confirmation' | 'succeeded' | 'canceled';
  transfer_data: null;
  transfer_group: null;
}

/** What Stripe.js sees with a publishable key and the client_secret (Stripe's documented subset). */
export const publishableView = (intent: PaymentIntent): Partial<PaymentIntent> => {
  const {
    id, object, amount, amount_details, automatic_payment_methods, canceled_at, cancellation_reason, capture_method, client_secret,
    confirmation_method, created, currency, description, last_payment_error, livemode, next_action, payment_method, payment_method_types,
    processing, receipt_email, setup_future_usage, shipping, status,
  } = intent;
  return {
    id, object, amount, amount_details, automatic_payment_methods, canceled_at, cancellation_reason, capture_method, client_secret,
    confirmation_method, created, currency, description, last_payment_error, livemode, next_action, payment_method, payment_method_types,
    processing, receipt_email, setup_future_usage, shipping, status,
  };
};

/** A test payment method and what confirming with it does (Stripe's test-mode ids). */
interface TestCard {
  brand: string;
  last4: string;
  /** Absent: the charge succeeds. */
  decline?: { code: string; decline_code?: string; message: string };
}

/** The test PaymentMethods the emulator knows (https://docs.stripe.com/testing#cards). */
export const testCards: Record<string, TestCard> = {
  pm_card_visa: { brand: 'visa', last4: '4242' },
  pm_card_visa_debit: { brand: 'visa', last4: '5556' },
  pm_card_mastercard: { brand: 'mastercard', last4: '4444' },
  pm_card_amex: { brand: 'amex', last4: '8431' },
  pm_card_chargeDeclined: { brand: 'visa', last4: '0002', decline: { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' } },
  pm_card_chargeDeclinedInsufficientFunds: {
    brand: 'visa', last4: '9995', decline: { code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  },
  pm_card_chargeDeclinedExpiredCard: { brand: 'visa', last4: '0069', decline: { code: 'expired_card', message: 'Your card has expired.' } },
  pm_card_chargeDeclinedIncorrectCvc: { brand: 'visa', last4: '0127', decline: { code: 'incorrect_cvc', message: "Your card's security code is incorrect." } },
};

/** Parameters of a creation, already checked. */
export interface CreateParameters {
  amount: number;
  currency: string;
  metadata: Record<string, string>;
  receipt_email?: string;
  description?: string;
  statement_descriptor?: string;
  payment_method_types?: string[];
}

const seconds = () => Math.floor(Date.now() / 1000);

/** A change of state: the intent after it and the event type Stripe sends for it. */
export interface Transition {
  intent: PaymentIntent;
  eventType: 'payment_intent.created' | 'payment_intent.succeeded' | 'payment_intent.payment_failed' | 'payment_intent.canceled';
  /** For a decline: the 402 error Stripe answers (the intent is still changed). */
  error?: StripeEmulatorError;
}

const cancelableStatuses = ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action', 'processing'];

/** The in-memory PaymentIntents of one emulator, newest last. */
export class IntentStore {
  private readonly intents = new Map<string, PaymentIntent>();

  /** Every intent, newest first (Stripe's list order). */
  all(): PaymentIntent[] {
    return [...this.intents.values()].reverse();
  }

  /** The intent, or 404 `resource_missing` (param `intent`, as Stripe names it). */
  get(id: string): PaymentIntent {
    const intent = this.intents.get(id);
    if (!intent) throw resourceMissing('payment_intent', id, 'intent');
    return intent;
  }

  /** Creates an intent in `requires_payment_method` (automatic payment methods, as Stripe's default). */
  create(parameters: CreateParameters): Transition {
    const id = stripeId('pi');
    const intent: PaymentIntent = {
      id,
      object: 'payment_intent',
      amount: parameters.amount,
      amount_capturable: 0,
      amount_details: { tip: {} },
      amount_received: 0,
      application: null,
      application_fee_amount: null,
      automatic_payment_methods: parameters.payment_method_types ? null : { allow_redirects: 'always', enabled: true },
      canceled_at: null,
      cancellation_reason: null,
      capture_method: 'automatic_async',
      client_secret: `${id}_secret_${randomId(25)}`,
      confirmation_method: 'automatic',
      created: seconds(),
      currency: parameters.currency,
      customer: null,
      description: parameters.description ?? null,
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      metadata: parameters.metadata,
      next_action: null,
      on_behalf_of: null,
      payment_method: null,
      payment_method_configuration_details: null,
      payment_method_options: { card: { installments: null, mandate_options: null, network: null, request_three_d_secure: 'automatic' } },
      payment_method_types: parameters.payment_method_types ?? ['card'],
      processing: null,
      receipt_email: parameters.receipt_email ?? null,
      review: null,
      setup_future_usage: null,
      shipping: null,
      source: null,
      statement_descriptor: parameters.statement_descriptor ?? null,
      statement_descriptor_suffix: null,
      status: 'requires_payment_method',
      transfer_data: null,
      transfer_group: null,
    };
    this.intents.set(id, intent);
    return { intent: structuredClone(intent), eventType: 'payment_intent.created' };
  }

  /**
   * Confirms with a test PaymentMethod: a succeeding card charges the whole amount
   * (`succeeded`, `amount_received`); a declining one leaves `requires_payment_method` with
   * `last_payment_error` and answers 402 `card_error`, as Stripe does.
   */
  confirm(id: string, paymentMethod: string | undefined): Transition {
    const intent = this.get(id);
    if (intent.status === 'succeeded' || intent.status === 'canceled') {
      throw unexpectedState(`This PaymentIntent's status is ${intent.status}, so it cannot be confirmed. You can only confirm a PaymentIntent with one of the following statuses: requires_payment_method, requires_confirmation, requires_action.`);
    }
    const methodId = paymentMethod ?? intent.payment_method ?? undefined;
    if (methodId === undefined) {
      throw parameterMissing('payment_method');
    }
    const card = Object.hasOwn(testCards, methodId) ? testCards[methodId] : undefined;
    if (!card) throw resourceMissing('PaymentMethod', methodId, 'payment_method');
    // Stripe makes a new PaymentMethod of a test id (pm_card_visa -> pm_1...).
    const method = { id: stripeId('pm'), object: 'payment_method', type: 'card', card: { brand: card.brand, last4: card.last4, exp_month: 12, exp_year: new Date().getFullYear() + 3 } };
    const charge = stripeId('ch');
    if (card.decline) {
      const lastPaymentError = {
        type: 'card_error',
        code: card.decline.code,
        ...(card.decline.decline_code ? { decline_code: card.decline.decline_code } : {}),
        doc_url: `https://stripe.com/docs/error-codes/${card.decline.code.replaceAll('_', '-')}`,
        message: card.decline.message,
        charge,
        payment_method: method,
      };
      Object.assign(intent, { status: 'requires_payment_method', payment_method: null, latest_charge: charge, last_payment_error: lastPaymentError });
      const snapshot = structuredClone(intent);
      const error = new StripeEmulatorError(402, { ...lastPaymentError, type: 'card_error', message: card.decline.message, payment_intent: snapshot });
      return { intent: snapshot, eventType: 'payment_intent.payment_failed', error };
    }
    Object.assign(intent, { status: 'succeeded', payment_method: method.id, latest_charge: charge, amount_received: intent.amount, last_payment_error: null });
    return { intent: structuredClone(intent), eventType: 'payment_intent.succeeded' };
  }

  /** Cancels an intent that has not succeeded (Stripe's cancelable statuses). */
  cancel(id: string, reason: string | undefined): Transition {
    const intent = this.get(id);
    if (!cancelableStatuses.includes(intent.status)) {
      throw unexpectedState(`You cannot cancel this PaymentIntent because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${cancelableStatuses.join(', ')}.`);
    }
    const reasons = ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'];
    if (reason !== undefined && !reasons.includes(reason)) {
      throw invalidValue('cancellation_reason', `Invalid cancellation_reason: must be one of ${reasons.join(', ')}`, 'parameter_invalid_string');
    }
    Object.assign(intent, { status: 'canceled', canceled_at: seconds(), cancellation_reason: reason ?? null });
    return { intent: structuredClone(intent), eventType: 'payment_intent.canceled' };
  }
}
