/**
 * An AWS SDK client made ready at init: the settings the SDK resolves lazily, on a client's
 * first `send`, resolved when the client is built instead, so that the first request of a
 * container does not wait for them. None of them reaches the network:
 *
 * - the region, FIPS and dual-stack flags, the account-id endpoint mode, the auth scheme
 *   preference, the app id of the user agent, the retry strategy (max attempts and retry
 *   mode) and a configured endpoint (AWS_ENDPOINT_URL_<SERVICE>): each is an explicit value,
 *   an environment variable or an entry of the shared config files (~/.aws/config, read once,
 *   absent in Lambda), resolved once and kept by the client;
 * - the credentials, only where reading them cannot call anything: credentials given to the
 *   client as values (DynamoDB Local's), or the bundles' default provider, which reads the
 *   environment alone (./environment-credentials.ts). The sources' full default chain may ask
 *   SSO, STS or the instance metadata endpoint, so it is left to the first call.
 *
 * What stays on the first call is the request itself (a connection, TLS, signing, the
 * endpoint rules for its table) and the compilation of the code it runs for the first time.
 * The benchmark's "cold import plus first call" (docs/benchmarks.md) measures the two
 * together; this moves a share of the first call into the import.
 */
import { readsEnvironmentOnly } from './environment-credentials';

/** The client settings resolved at init (see the module comment); a name the client lacks is skipped. */
const settingsResolvedAtInit = [
  'region',
  'useFipsEndpoint',
  'useDualstackEndpoint',
  'accountIdEndpointMode',
  'authSchemePreference',
  'userAgentAppId',
  'retryStrategy',
  'serviceConfiguredEndpoint',
  'endpoint',
] as const;

/** What prepareClient reads of a client: its resolved configuration (every SDK v3 client has one). */
export interface PreparableClient {
  config: object;
}

const resolve = (provider: unknown): Promise<unknown> =>
  typeof provider === 'function' ? Promise.resolve().then(() => (provider as () => unknown)()) : Promise.resolve(provider);

/**
 * Starts resolving, at init, what `client` would resolve on its first call (the module
 * comment lists it), and resolves once all of it settled. `staticCredentials`: the client was
 * given credentials as values. A failure is not reported here: the first call meets the same
 * setting again and fails with its error (e.g. missing credentials), in the request that can
 * log it. The client keeps every value it resolved, so nothing is done twice.
 */
export const prepareClient = (client: PreparableClient, options: { staticCredentials: boolean }): Promise<void> => {
  const config = client.config as Record<string, unknown>;
  const pending = settingsResolvedAtInit.filter((name) => name in config).map((name) => resolve(config[name]));
  if (options.staticCredentials || readsEnvironmentOnly(config.credentialDefaultProvider)) pending.push(resolve(config.credentials));
  return Promise.allSettled(pending).then(() => undefined);
};
