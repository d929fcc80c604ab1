import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RuntimeCleanups } from './runtime-cleanups';

/**
 * The e-mail outbox folder of a runtime: EMAIL_OUTBOX_DIR when given; else, with persistDir,
 * `<persistDir>/outbox` (kept with the data: the exactly-once rules look effects up there
 * after a restart); else a fresh folder of this instance's own, removed when it stops.
 */
export const runtimeOutbox = (given: Record<string, string>, persistDir: string | undefined, cleanups: RuntimeCleanups): string => {
  const outboxDir = given.EMAIL_OUTBOX_DIR || (persistDir ? join(persistDir, 'outbox') : undefined);
  if (!outboxDir) {
    const temporary = mkdtempSync(join(tmpdir(), 'sim-service-outbox-'));
    cleanups.add(() => rmSync(temporary, { recursive: true, force: true }));
    return temporary;
  }
  mkdirSync(outboxDir, { recursive: true });
  return outboxDir;
};
