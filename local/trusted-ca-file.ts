import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RuntimeCleanups } from './runtime-cleanups';

/**
 * Writes the certificates the handlers' outbound calls trust (their NODE_EXTRA_CA_CERTS) into
 * a fresh folder, removed when the runtime stops: the webhook inbox's certificate, then the
 * contents of the extra CA file given, if any. Returns the file's path.
 */
export const writeTrustedCaFile = (inboxCertificate: string, extraCaFile: string | undefined, cleanups: RuntimeCleanups): string => {
  const trustFolder = mkdtempSync(join(tmpdir(), 'sim-service-trust-'));
  cleanups.add(() => rmSync(trustFolder, { recursive: true, force: true }));
  const trustedCaFile = join(trustFolder, 'trusted-ca.pem');
  writeFileSync(trustedCaFile, [inboxCertificate, ...(extraCaFile ? [readFileSync(extraCaFile, 'utf8')] : [])].join('\n'));
  return trustedCaFile;
};
