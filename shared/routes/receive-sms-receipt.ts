import { logger } from '../observability/logger';
import { sqsReceiptQueue } from '../callbacks/receipt-queue';
import type { FunctionConfig } from '../config/function-config';
import { getSecret } from '../config/secrets';
import { documentClient } from '../db/client';
import { ApiError } from '../errors/api-error';
import { header } from '../http/headers';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { isValidProviderSignature, parseProviderReceipt, recordReceipt, type ReceiptDeps } from '../sms/receipts';

/** What the receipts route needs: where receipts are recorded and queued, and the provider's HMAC key. */
export interface ReceiptRouteDeps extends ReceiptDeps {
  /** The SMS_RECEIPT_SECRET secret (read per request: secrets rotate), undefined when not configured. */
  receiptSecret: () => Promise<string | undefined>;
}

/** The deps of the receive-sms-receipt function, from its configuration (read once at init). */
export const receiptRouteDeps = (config: FunctionConfig<'receive-sms-receipt'>): ReceiptRouteDeps => ({
  table: { db: documentClient(config), tableName: config.tableName },
  queue: sqsReceiptQueue(config, config.callbackQueueUrl),
  now: () => new Date(),
  receiptSecret: () => getSecret('SMS_RECEIPT_SECRET'),
});

/**
 * POST /sms-provider/receipts — a delivery receipt from the SMS provider. The HMAC in
 * X-Provider-Signature is checked on the raw body before anything is parsed (401
 * `invalid_signature`), then the receipt is recorded and, when it moved the message, queued
 * for forwarding to the caller's callback_url.
 */
export const receiptRoute = (deps: ReceiptRouteDeps) =>
  httpRoute({}, async (event) => {
    const rawBody = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
    const secret = await deps.receiptSecret();
    if (!secret) {
      logger.error('SMS_RECEIPT_SECRET is not configured; receipts are refused');
    }
    if (!isValidProviderSignature(rawBody, header(event, 'X-Provider-Signature'), secret)) {
      throw new ApiError(401, 'invalid_signature', 'The X-Provider-Signature header is missing or does not match the body.');
    }
    return ok(200, await recordReceipt(deps, parseProviderReceipt(rawBody)));
  });
