import { allRoutes } from '../shared/topology/routes';
import type { GatewayAnswerRecord } from './gateway';

/** The routes that create a checkout: those that hold the Stripe secret key. */
const checkoutRouteNames = new Set(allRoutes().filter((route) => route.access.secrets?.includes('STRIPE_SECRET_KEY')).map((route) => route.name));

/** Where `npm run pay` looks when given no --base (local/pay-cli.ts, with LOCAL_API_URL and PORT unset). */
const payDefaultBase = 'http://127.0.0.1:3000';

/**
 * The line `npm start` prints for a checkout just created on the Stripe emulator: the pay
 * command ready to paste (with `--base` unless the API is where `npm run pay` looks by
 * default), and the console's Pay button. Undefined for any other answer.
 */
export const checkoutPayLine = (answer: GatewayAnswerRecord, baseUrl: string, consoleUrl: string): string | undefined => {
  if (answer.stage !== 'route' || answer.status !== 201 || !checkoutRouteNames.has(answer.route ?? '')) return undefined;
  let orderId: unknown;
  try {
    orderId = (JSON.parse(answer.body.toString('utf8')) as { order_id?: unknown }).order_id;
  } catch {
    return undefined;
  }
  if (typeof orderId !== 'string') return undefined;
  const base = baseUrl === payDefaultBase ? '' : ` --base ${baseUrl}`;
  return `Checkout ${orderId} awaits payment: npm run pay -- ${orderId}${base}   (or Pay on ${consoleUrl}#order-${orderId})`;
};
