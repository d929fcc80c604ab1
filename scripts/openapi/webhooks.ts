import { componentRef } from './json-schema';

/**
 * The delivery receipt (SPEC.md A4, Events 1) as an OpenAPI 3.1 webhook: what the service
 * POSTs to a message's callback_url, signed as Standard Webhooks sign (docs/sms.md).
 */
export const deliveryReceiptWebhook = {
  post: {
    operationId: 'deliveryReceipt',
    tags: ['SMS'],
    summary: 'Delivery receipt to callback_url',
    description:
      "Posted once to the callback_url of a message when the network reports its outcome. Signed with the customer's `whsec_` secret (`npm run admin -- webhook-secret`), Standard Webhooks style; verify the signature on the raw body. Any 2xx answer is success; anything else is logged and not retried. HTTPS only, no redirects followed, 10 s in all.",
    security: [],
    parameters: [
      {
        name: 'webhook-id',
        in: 'header',
        required: true,
        description: '`<percent-encoded message_id>:<status>`, stable per receipt: use it to de-duplicate.',
        schema: { type: 'string' },
        example: 'm-42:delivered',
      },
      {
        name: 'webhook-timestamp',
        in: 'header',
        required: true,
        description: 'Unix seconds of the attempt; refuse one more than 5 minutes off.',
        schema: { type: 'string', pattern: '^[0-9]+$' },
        example: '1763805600',
      },
      {
        name: 'webhook-signature',
        in: 'header',
        required: true,
        description: '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">` under the base64-decoded part of the `whsec_` secret.',
        schema: { type: 'string', pattern: '^v1,' },
        example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
      },
    ],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: { $ref: componentRef('DeliveryReceipt') },
          example: {
            message_id: 'm-42',
            iccid: '8944500000000001001',
            msisdn: '447700900001',
            status: 'delivered',
            received_at: '2026-11-22T10:00:00.212+00:00',
          },
        },
      },
    },
    responses: {
      // The receiver's answer: the service's own response headers (./headers.ts) do not apply.
      '2XX': { description: 'Received. The body of the answer is ignored (at most 1 KiB is read).' },
    },
  },
};
