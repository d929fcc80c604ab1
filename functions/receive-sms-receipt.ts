import { readConfig } from '../shared/config/env';
import { getSecret } from '../shared/config/secrets';
import { documentClient } from '../shared/db/client';
import { ApiError } from '../shared/http/api-error';
import { header } from '../shared/http/headers';
import { ok } from '../shared/http/responses';
import { httpRoute } from '../shared/http/route';
import { sqsReceiptQueue } from '../shared/callbacks/receipt-queue';
import { readSmsConfig } from '../shared/sms/config';
import { isValidProviderSignature, parseProviderReceipt, recordReceipt } from '../shared/sms/receipts';

/**
 * POST /sms-provider/receipts — a delivery receipt from the SMS provider. The HMAC in
 * X-Provider-Signature is checked on the raw body before anything is parsed (401
 * `invalid_signature`), then the receipt is recorded and, when it moved the message, queued
 * for forwarding to the caller's callback_url.
 */
export const handler = httpRoute({}, async (event) => {
  const rawBody = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
  const secret = await getSecret('SMS_RECEIPT_SECRET');
  if (!secret) {
    console.error(JSON.stringify({ level: 'ERROR', message: 'SMS_RECEIPT_SECRET is not configured; receipts are refused' }));
  }
  if (!isValidProviderSignature(rawBody, header(event, 'X-Provider-Signature'), secret)) {
    throw new ApiError(401, 'invalid_signature', 'The X-Provider-Signature header is missing or does not match the body.');
  }
  const config = readConfig();
  const smsConfig = readSmsConfig();
  const answer = await recordReceipt(
    {
      table: { db: documentClient(config), tableName: config.tableName },
      queue: smsConfig.callbackQueueUrl ? sqsReceiptQueue(config, smsConfig.callbackQueueUrl) : undefined,
      now: () => new Date(),
    },
    parseProviderReceipt(rawBody),
  );
  return ok(200, answer);
});
