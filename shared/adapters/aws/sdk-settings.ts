/**
 * Five settings every AWS SDK v3 client looks up itself unless it is given them: FIPS and
 * dual-stack endpoints, the account-ID endpoint mode (DynamoDB), the auth scheme preference and
 * the defaults mode. Each lookup is a chain (its environment variable, then the profile in
 * ~/.aws/config, then the SDK's default) that the client builds when it is constructed and runs
 * on its first call, or at init (./prepare-client.ts). A Lambda function has no ~/.aws/config,
 * so there the chain can only end at the environment variable or at the default. The service's
 * configuration reads which of the variables are set (shared/config/function-config.ts,
 * `sdkSettingVariables`): for one that is not, the clients are given the SDK's default, and
 * build and run no chain for it; for one that is, they are given nothing and read it as before.
 * That is about 3 M instructions less at the init of a function that builds a client (get-sim;
 * docs/benchmarks.md), with the same values in Lambda. What it changes elsewhere: a profile's
 * `use_fips_endpoint`, `use_dualstack_endpoint`, `account_id_endpoint_mode`,
 * `auth_scheme_preference` or `defaults_mode` is no longer read (docs/deploy.md, "SDK settings
 * from the environment").
 */

/**
 * Four of the settings as options of any SDK client; undefined: the client looks the setting up
 * itself. The fifth, `accountIdEndpointMode`, only DynamoDB's client has (shared/db/client.ts).
 */
export interface SdkSettings {
  useFipsEndpoint?: boolean | undefined;
  useDualstackEndpoint?: boolean | undefined;
  authSchemePreference?: string[] | undefined;
  defaultsMode?: 'standard' | 'in-region' | 'cross-region' | 'mobile' | 'auto' | 'legacy' | undefined;
}

/**
 * The SDK settings of a configuration as options for a client's constructor: those four fields
 * and nothing else of it. An undefined one is as good as absent (the clients take each with `??`).
 */
export const sdkSettingsOf = (config: SdkSettings): SdkSettings => ({
  useFipsEndpoint: config.useFipsEndpoint,
  useDualstackEndpoint: config.useDualstackEndpoint,
  authSchemePreference: config.authSchemePreference,
  defaultsMode: config.defaultsMode,
});
