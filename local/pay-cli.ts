/**
 * `npm run pay -- <order_id | payment intent id> [--decline | --cancel] [--base URL]`: pays,
 * declines or cancels a checkout's payment intent on a running `npm start` whose Stripe is the
 * embedded emulator (STRIPE_SECRET_KEY unset). An order id is found through the emulator's
 * search (`metadata['order_id']`). The base URL is `--base`, else LOCAL_API_URL, else
 * `http://127.0.0.1:${PORT ?? 3000}`. Prints the intent's id and status; exit 1 on failure.
 */
import { localSecretKey } from './stripe-emulator';

/** What one pay command did. */
export interface PayResult {
  intentId: string;
  /** HTTP status of the confirm / cancel answer. */
  status: number;
  /** The intent's status after it, or the Stripe error code. */
  outcome: string;
}

/** A command line the pay command cannot run. */
export class PayUsageError extends Error {}

const usage = 'Usage: npm run pay -- <order_id | payment intent id> [--decline | --cancel] [--base URL]';

/** Runs the pay command against `baseUrl` (the API's base URL). */
export const pay = async (target: string, action: 'pay' | 'decline' | 'cancel', baseUrl: string): Promise<PayResult> => {
  const stripe = `${baseUrl.replace(/\/+$/, '')}/_local/stripe/v1/payment_intents`;
  const headers = { Authorization: `Bearer ${localSecretKey}` };
  let intentId = target;
  if (!target.startsWith('pi_')) {
    const query = new URLSearchParams({ query: `metadata['order_id']:'${target.replaceAll("'", '')}'` });
    const response = await fetch(`${stripe}/search?${query}`, { headers });
    if (response.status === 404) throw new PayUsageError(`${baseUrl} runs no Stripe emulator (start it with STRIPE_SECRET_KEY unset).`);
    const found = (await response.json()) as { data?: Array<{ id: string }> };
    if (!found.data?.[0]) throw new PayUsageError(`No payment intent for order ${target} on ${baseUrl}.`);
    intentId = found.data[0].id;
  }
  const path = action === 'cancel' ? 'cancel' : 'confirm';
  const body = action === 'cancel' ? '' : new URLSearchParams({ payment_method: action === 'decline' ? 'pm_card_chargeDeclined' : 'pm_card_visa' }).toString();
  const response = await fetch(`${stripe}/${encodeURIComponent(intentId)}/${path}`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' },
    body,
  });
  const answer = (await response.json()) as { status?: string; error?: { code?: string; message?: string } };
  return { intentId, status: response.status, outcome: answer.status ?? answer.error?.code ?? answer.error?.message ?? 'unknown' };
};

const main = async () => {
  const args = process.argv.slice(2);
  let action: 'pay' | 'decline' | 'cancel' = 'pay';
  let base = process.env.LOCAL_API_URL || `http://127.0.0.1:${process.env.PORT || 3000}`;
  const targets: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const argument = args[index]!;
    if (argument === '--decline') action = 'decline';
    else if (argument === '--cancel') action = 'cancel';
    else if (argument === '--base') base = args[++index] ?? '';
    else if (argument.startsWith('--')) throw new PayUsageError(`Unknown option ${argument}. ${usage}`);
    else targets.push(argument);
  }
  if (targets.length !== 1 || !base) throw new PayUsageError(usage);
  const result = await pay(targets[0]!, action, base);
  console.log(`${result.intentId}: ${result.outcome} (HTTP ${result.status})`);
  if (result.status >= 400 && !(action === 'decline' && result.outcome === 'card_declined')) process.exitCode = 1;
};

if (process.argv[1]?.endsWith('pay-cli.ts')) {
  main().catch((error: unknown) => {
    console.error(error instanceof PayUsageError ? error.message : `pay failed: ${(error as Error).message}`);
    process.exit(1);
  });
}
