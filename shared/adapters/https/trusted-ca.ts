import { logger } from '../../observability/logger';
import { readFileSync, statSync } from 'node:fs';
import type tls from 'node:tls';

/**
 * node:tls (for its root certificates), from Node's built-ins when extra CAs are first read
 * rather than imported: the import builds node:tls's module facade at every cold start, though
 * only a function given NODE_EXTRA_CA_CERTS reads it.
 */
const nodeTls = (): typeof tls => process.getBuiltinModule('node:tls');

let cached: { path: string; mtimeMs: number; ca: string[] } | undefined;

/**
 * The CA certificates outbound HTTPS calls trust: Node's bundled roots plus the PEM file at
 * `path` (NODE_EXTRA_CA_CERTS, read with the function's configuration at init:
 * shared/config/function-config.ts). Node itself reads that variable only when the process
 * starts, so a local runtime that sets it later (a test giving it to the runtime) would
 * otherwise be ignored. Undefined when no path is given (Node's defaults apply). The file is
 * read again when it changes; one that cannot be read is logged per call and ignored.
 */
export const trustedCa = (path: string | undefined): string[] | undefined => {
  if (!path) return undefined;
  try {
    const { mtimeMs } = statSync(path);
    if (cached?.path !== path || cached.mtimeMs !== mtimeMs) {
      cached = { path, mtimeMs, ca: [...nodeTls().rootCertificates, readFileSync(path, 'utf8')] };
    }
    return cached.ca;
  } catch (error) {
    logger.error('NODE_EXTRA_CA_CERTS could not be read', { path, error: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
};
