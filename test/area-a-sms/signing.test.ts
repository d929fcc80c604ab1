import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { customerWebhookSecret, receiptWebhookId, verifyWebhook, webhookHeaders, webhookSignature } from '../../shared/callbacks/signing';

describe('Standard Webhooks signing', () => {
  it('signs "<id>.<timestamp>.<body>" exactly as the Standard Webhooks reference vector', () => {
    expect(
      webhookSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('derives a stable per-customer whsec_ secret from the master secret, different per customer', () => {
    const secret = customerWebhookSecret('master-secret', 'acme');
    expect(secret).toBe(`whsec_${createHmac('sha256', 'master-secret').update('acme').digest('base64')}`);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(customerWebhookSecret('master-secret', 'acme')).toBe(secret);
    expect(customerWebhookSecret('master-secret', 'globex')).not.toBe(secret);
    expect(customerWebhookSecret('other-master', 'acme')).not.toBe(secret);
  });

  it('verifies its own headers, and refuses a changed body, another secret or a stale timestamp', () => {
    const secret = customerWebhookSecret('master-secret', 'acme');
    const body = '{"message_id":"m-1","status":"delivered"}';
    const headers = webhookHeaders(secret, receiptWebhookId('m-1', 'delivered'), 1_800_000_000, body);
    expect(headers['webhook-id']).toBe('m-1:delivered');
    const given = { id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], signature: headers['webhook-signature'] };
    expect(verifyWebhook(secret, given, body, 1_800_000_010)).toBe(true);
    expect(verifyWebhook(secret, given, `${body} `, 1_800_000_010)).toBe(false);
    expect(verifyWebhook(customerWebhookSecret('master-secret', 'globex'), given, body, 1_800_000_010)).toBe(false);
    expect(verifyWebhook(secret, given, body, 1_800_000_000 + 301)).toBe(false);
  });

  it('percent-encodes the message id in webhook-id so the header stays ASCII', () => {
    expect(receiptWebhookId('order 7/ü:1', 'failed')).toBe('order%207%2F%C3%BC%3A1:failed');
  });
});
