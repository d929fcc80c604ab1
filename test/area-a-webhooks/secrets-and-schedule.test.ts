import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../shared/callbacks/signing';
import type { WebhookSubscriptionItem } from '../../shared/db/items';
import { webhookSignatures } from '../../shared/callbacks/signing';
import { signingSecrets } from '../../shared/webhooks/deliver-job';
import { defaultRetryScheduleSeconds } from '../../shared/config/function-config';
import { wholeSecondsList } from '../../shared/config/variables';
import { retryDelaySeconds } from '../../shared/queues/retry-schedule';
import { newSigningSecret, openSecret, sealSecret } from '../../shared/webhooks/secret-box';

const keyMaterial = 'test-webhook-secrets-key';

describe('sealed signing secrets', () => {
  it('opens only with the same key and for the same subscription, and never holds the secret in clear', () => {
    const secret = newSigningSecret();
    const sealed = sealSecret(keyMaterial, 'wh_a', secret);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(openSecret(keyMaterial, 'wh_a', sealed)).toBe(secret);
    expect(() => openSecret('another key', 'wh_a', sealed)).toThrow();
    expect(() => openSecret(keyMaterial, 'wh_b', sealed)).toThrow();
    expect(sealSecret(keyMaterial, 'wh_a', secret)).not.toBe(sealed);
  });

  it('signs with the previous secret beside the new one for 24 hours after a rotation, then with the new one alone', () => {
    const [current, previous] = [newSigningSecret(), newSigningSecret()];
    const rotatedAt = Date.parse('2026-11-25T12:00:00Z');
    const subscription = {
      id: 'wh_a',
      secret_sealed: sealSecret(keyMaterial, 'wh_a', current),
      previous_secret_sealed: sealSecret(keyMaterial, 'wh_a', previous),
      previous_secret_expires_at_ms: rotatedAt + 24 * 3600 * 1000,
    } as WebhookSubscriptionItem;
    expect(signingSecrets(keyMaterial, subscription, rotatedAt + 23 * 3600 * 1000)).toEqual([current, previous]);
    expect(signingSecrets(keyMaterial, subscription, rotatedAt + 24 * 3600 * 1000)).toEqual([current]);

    const now = Math.floor(Date.now() / 1000);
    const header = webhookSignatures([current, previous], 'evt_1', now, '{"a":1}');
    expect(header.split(' ')).toHaveLength(2);
    for (const secret of [current, previous]) expect(verifyWebhook(secret, { id: 'evt_1', timestamp: String(now), signature: header }, '{"a":1}')).toBe(true);
    expect(verifyWebhook(newSigningSecret(), { id: 'evt_1', timestamp: String(now), signature: header }, '{"a":1}')).toBe(false);
  });
});

describe('retired secrets', () => {
  it('signs with each retired secret for 24 hours from its own retirement, at most the 3 most recently retired', () => {
    const [current, a, b, c] = [newSigningSecret(), newSigningSecret(), newSigningSecret(), newSigningSecret()];
    const at = Date.parse('2026-11-25T12:00:00Z');
    const hour = 3600 * 1000;
    const subscription = {
      id: 'wh_a',
      secret_sealed: sealSecret(keyMaterial, 'wh_a', current),
      retired_secrets: [
        { sealed: sealSecret(keyMaterial, 'wh_a', a), expires_at_ms: at + 24 * hour },
        { sealed: sealSecret(keyMaterial, 'wh_a', b), expires_at_ms: at + 20 * hour },
        { sealed: sealSecret(keyMaterial, 'wh_a', c), expires_at_ms: at + 2 * hour },
      ],
    } as WebhookSubscriptionItem;
    expect(signingSecrets(keyMaterial, subscription, at + hour)).toEqual([current, a, b, c]);
    expect(signingSecrets(keyMaterial, subscription, at + 2 * hour)).toEqual([current, a, b]);
    expect(signingSecrets(keyMaterial, subscription, at + 23 * hour)).toEqual([current, a]);
    expect(signingSecrets(keyMaterial, subscription, at + 24 * hour)).toEqual([current]);
  });
});

describe('the retry schedule', () => {
  it('waits 1 min, 5 min, 30 min, 2 h, 6 h and 12 h by default, each within ±20 %, never past the 12-hour visibility limit', () => {
    expect(defaultRetryScheduleSeconds).toEqual([60, 300, 1800, 7200, 21_600, 43_200]);
    expect([1, 2, 3, 4, 5, 6].map((attempt) => retryDelaySeconds(defaultRetryScheduleSeconds, attempt, () => 0.5))).toEqual([60, 300, 1800, 7200, 21_600, 43_000]);
    expect(retryDelaySeconds(defaultRetryScheduleSeconds, 1, () => 0)).toBe(48);
    expect(retryDelaySeconds(defaultRetryScheduleSeconds, 1, () => 0.999999)).toBe(72);
    // A schedule shorter than the attempts repeats its last step.
    expect(retryDelaySeconds([1, 2], 5, () => 0.5)).toBe(2);
    expect(retryDelaySeconds([1], 1, () => 0)).toBe(1);
  });

  it('reads WEBHOOK_RETRY_SCHEDULE_SECONDS as comma-separated whole seconds', () => {
    expect(wholeSecondsList('1, 2,3')).toEqual([1, 2, 3]);
    expect(() => wholeSecondsList('1,,2')).toThrow('must be comma-separated whole seconds (e.g. 60,300,1800), not "1,,2"');
    expect(() => wholeSecondsList('1.5')).toThrow();
  });
});
