/**
 * What the deployed bundles get instead of `@aws-sdk/credential-provider-node` (an esbuild
 * alias, infra/bundling.ts `functionBundling.alias`): the SDK's default credential chain cut
 * down to its first link, the environment variables, which is where Lambda puts a
 * function's credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN).
 *
 * Every SDK client's Node runtime config imports `defaultProvider` from that package whatever
 * `credentials` it is given, and with it the chain's other links: shared config files and
 * profiles, SSO and login, web identity, credential_process, the container and instance
 * metadata endpoints, and the STS/SSO clients they use (@aws-sdk/nested-clients), about
 * 100 KiB of every bundle that a Lambda function never runs. Only the bundles are aliased:
 * the sources (npm start without --bundled, the CLIs, the tests, the benchmark's own
 * clients) keep the full chain, so a profile or SSO login works there and never inside a
 * bundle (docs/deploy.md, "Credentials inside the bundles").
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

type EnvironmentInit = Parameters<typeof fromEnv>[0];
type CredentialProvider = ReturnType<typeof fromEnv>;
type Credentials = Awaited<ReturnType<CredentialProvider>>;

/** The message of the error a bundled client fails its call with when the environment has no credentials. */
export const missingCredentialsMessage =
  'no AWS credentials in the environment: a bundled function reads AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY ' +
  '(and AWS_SESSION_TOKEN) from the environment, as Lambda sets them; profiles, SSO, web identity and instance ' +
  'or container credentials are not bundled (docs/deploy.md, "Credentials inside the bundles")';

/** Credentials within this many milliseconds of their expiration are read again, as the SDK's own chain does. */
const refreshWindowMs = 300_000;

const stale = (credentials: Credentials): boolean =>
  credentials.expiration !== undefined && credentials.expiration.getTime() - Date.now() < refreshWindowMs;

/**
 * Marks the provider factory below, so that code holding a client can tell that its default
 * credentials come from the environment alone and can be read at init without any network
 * call (./prepare-client.ts): true of the bundles' clients only, never of the full chain.
 */
const environmentOnly = 'environmentOnly';

/**
 * The SDK's `defaultProvider` as the bundles see it: the credentials of the environment (the
 * SDK's own fromEnv, so the same variables, session token, expiration and account id), read on
 * first use and kept, like the default chain keeps what it found, until they near an
 * expiration the environment gave. Without them a call fails with `missingCredentialsMessage`,
 * not with the default chain's search of files and endpoints.
 */
export const defaultProvider = Object.assign(
  (init: EnvironmentInit = {}): CredentialProvider => {
    const readEnvironment = fromEnv(init);
    let kept: Credentials | undefined;
    return async () => {
      if (kept && !stale(kept)) return kept;
      try {
        kept = await readEnvironment();
      } catch (error) {
        throw new Error(missingCredentialsMessage, { cause: error });
      }
      return kept;
    };
  },
  { [environmentOnly]: true as const },
);

/** Whether a client's `credentialDefaultProvider` is `defaultProvider` above (reads the environment only, never the network). */
export const readsEnvironmentOnly = (credentialDefaultProvider: unknown): boolean =>
  typeof credentialDefaultProvider === 'function' && (credentialDefaultProvider as { [environmentOnly]?: unknown })[environmentOnly] === true;
