/**
 * Idempotency keys as Stripe keeps them: the first answer to a POST with an `Idempotency-Key`
 * is saved (an error included, once the endpoint ran: a 402 decline is saved, a 400 for bad
 * parameters is not) and a later request with the same key and the same endpoint and
 * parameters gets it again with `Idempotent-Replayed: true`; the same key with another
 * endpoint or other parameters is 400 `idempotency_error`. Keys are per API key and kept
 * for 24 hours, as Stripe keeps them.
 */
import { idempotencyMismatch } from './errors';

/** A saved answer. */
export interface SavedAnswer {
  status: number;
  body: string;
  requestId: string;
}

interface Entry {
  fingerprint: string;
  answer: SavedAnswer;
  savedAt: number;
}

const retentionMs = 24 * 60 * 60 * 1000;

/** The saved answers of one emulator. */
export class IdempotencyStore {
  private readonly entries = new Map<string, Entry>();

  /** The saved answer for this key, or undefined; throws idempotency_error when the request differs. */
  replay(apiKey: string, key: string, fingerprint: string, now = Date.now()): SavedAnswer | undefined {
    const entry = this.entries.get(`${apiKey}\n${key}`);
    if (!entry || now - entry.savedAt > retentionMs) return undefined;
    if (entry.fingerprint !== fingerprint) throw idempotencyMismatch(key);
    return entry.answer;
  }

  /** Saves the answer given to the first request with this key. */
  save(apiKey: string, key: string, fingerprint: string, answer: SavedAnswer, now = Date.now()): void {
    this.entries.set(`${apiKey}\n${key}`, { fingerprint, answer, savedAt: now });
  }
}
