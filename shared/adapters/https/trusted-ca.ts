import { readFileSync, statSync } from 'node:fs';
import tls from 'node:tls';

let cached: { path: string; mtimeMs: number; ca: string[] } | undefined;

/**
 * The CA certificates outbound HTTPS calls trust: Node's bundled roots plus the PEM file named
 * by NODE_EXTRA_CA_CERTS, read at call time. Node itself reads that variable only when the
 * process starts, so a runtime that sets it later (a test giving it to the local runtime)
 * would otherwise be ignored. Undefined when the variable is unset (Node's defaults apply).
 * A file that cannot be read is logged once per call and ignored.
 */
export const trustedCa = (env: NodeJS.ProcessEnv = process.env): string[] | undefined => {
  const path = env.NODE_EXTRA_CA_CERTS;
  if (!path) return undefined;
  try {
    const { mtimeMs } = statSync(path);
    if (cached?.path !== path || cached.mtimeMs !== mtimeMs) {
      cached = { path, mtimeMs, ca: [...tls.rootCertificates, readFileSync(path, 'utf8')] };
    }
    return cached.ca;
  } catch (error) {
    console.error(
      JSON.stringify({
        level: 'ERROR',
        message: 'NODE_EXTRA_CA_CERTS could not be read',
        path,
        error: error instanceof Error ? error.message : String(error),
      }),
    );
    return undefined;
  }
};
