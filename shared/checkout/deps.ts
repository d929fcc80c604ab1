import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FunctionConfig } from '../config/function-config';
import { getSecret } from '../config/secrets';
import { documentClient } from '../db/client';
import { stripeGateway, type PaymentGateway } from '../adapters/stripe/payment-gateway';
import { rateTableTaxCalculator, type TaxCalculator } from './tax';

/**
 * Everything a checkout talks to, passed in so that tests can swap any adapter (a failing
 * tax calculator, a controllable clock) without mocking the AWS SDK.
 */
export interface CheckoutDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  /** The clock. */
  now: () => Date;
  /** A fresh order id (a UUID). */
  newOrderId: () => string;
  taxCalculator: TaxCalculator;
  /** The payment gateway for the configured secret key, or undefined when no key is configured. */
  paymentGateway: () => Promise<PaymentGateway | undefined>;
  /** How long a stock hold lasts. */
  stockHoldMinutes: number;
}

/**
 * The deps of a checkout function, built once per container from its configuration (read at
 * init by defineFunction, shared/config/define-function.ts). The Stripe secret key is looked
 * up per request through getSecret, which caches Secrets Manager reads, so a key configured
 * or rotated later is picked up; the gateway is one plain HTTPS POST per payment intent
 * (shared/adapters/stripe), so there is no client to build.
 */
export const checkoutDeps = (config: FunctionConfig<'checkout-esim'>): CheckoutDeps => ({
  db: documentClient(config),
  tableName: config.tableName,
  now: () => new Date(),
  newOrderId: () => randomUUID(),
  taxCalculator: rateTableTaxCalculator(),
  paymentGateway: async () => {
    const secretKey = await getSecret('STRIPE_SECRET_KEY');
    return secretKey ? stripeGateway(secretKey, config.stripeApiBase) : undefined;
  },
  stockHoldMinutes: config.stockHoldMinutes,
});
