import type { SecretName } from '../../infra/routes';

/**
 * Reads a secret by name. Locally (and in tests) the value comes from the environment
 * variable of the same name. Deployed, the stack passes `<NAME>_SECRET_ARN` instead of the
 * value, and the secret string is fetched from AWS Secrets Manager once per container and
 * cached for five minutes, so a rotated secret is picked up without a redeploy.
 * Returns undefined when the secret is not configured at all.
 */
export const getSecret = async (name: SecretName, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> => {
  const direct = env[name];
  if (direct !== undefined && direct !== '') return direct;
  const arn = env[`${name}_SECRET_ARN`];
  if (!arn) return undefined;
  const cached = cache.get(arn);
  if (cached && cached.expiresAtMs > Date.now()) return cached.value;
  const value = await fetchSecret(arn);
  cache.set(arn, { value, expiresAtMs: Date.now() + 5 * 60_000 });
  return value;
};

const cache = new Map<string, { value: string | undefined; expiresAtMs: number }>();

const fetchSecret = async (arn: string): Promise<string | undefined> => {
  // Imported lazily so that functions without secrets never load the Secrets Manager client.
  const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  client ??= new SecretsManagerClient({});
  const result = await client.send(new GetSecretValueCommand({ SecretId: arn }));
  return result.SecretString || undefined;
};

let client: import('@aws-sdk/client-secrets-manager').SecretsManagerClient | undefined;
