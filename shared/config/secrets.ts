import type { SecretName } from '../topology/routes';

/**
 * Reads a secret by name. Locally (and in tests) the value comes from the environment
 * variable of the same name. Deployed, the stack passes `<NAME>_SECRET_ARN` instead of the
 * value, and the secret string is fetched through the AWS Parameters and Secrets Lambda
 * Extension (a layer the stack adds to every function that reads a secret; no AWS SDK client
 * in the bundle), then cached in the process for five minutes, so a rotated secret is
 * picked up without a redeploy.
 * Returns undefined when the secret is not configured at all; throws when it is configured
 * but cannot be read (extension unreachable, an error answer, or no SecretString).
 */
export const getSecret = async (name: SecretName, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> => {
  const direct = env[name];
  if (direct !== undefined && direct !== '') return direct;
  const arn = env[`${name}_SECRET_ARN`];
  if (!arn) return undefined;
  const cached = cache.get(arn);
  if (cached && cached.expiresAtMs > Date.now()) return cached.value;
  const value = await fetchFromExtension(name, arn, env);
  cache.set(arn, { value, expiresAtMs: Date.now() + cacheMs });
  return value;
};

/** How long a fetched secret is kept in the process. */
const cacheMs = 5 * 60_000;
/** How long one request to the extension may take before it counts as failed. */
const requestTimeoutMs = 5_000;

const cache = new Map<string, { value: string; expiresAtMs: number }>();

/**
 * `GET http://localhost:<port>/secretsmanager/get?secretId=<ARN>` with the session token as
 * `X-Aws-Parameters-Secrets-Token`, as the extension requires; the answer is Secrets Manager's
 * GetSecretValue response as JSON.
 */
const fetchFromExtension = (name: SecretName, arn: string, env: NodeJS.ProcessEnv): Promise<string> => {
  const port = env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT || '2773';
  const path = `/secretsmanager/get?secretId=${encodeURIComponent(arn)}`;
  const fail = (reason: string, cause?: unknown) =>
    new Error(`secret ${name} could not be read through the Parameters and Secrets extension (port ${port}): ${reason}`, { cause });
  return new Promise((resolve, reject) => {
    // From Node's built-ins, not an ES module import of node:http, whose module facade would
    // load Node's bundled undici at every cold start (shared/adapters/https/outbound-post.ts).
    const outgoing = process.getBuiltinModule('node:http').request(
      {
        host: 'localhost',
        port,
        path,
        method: 'GET',
        headers: { 'X-Aws-Parameters-Secrets-Token': env.AWS_SESSION_TOKEN ?? '' },
        timeout: requestTimeoutMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', (error) => reject(fail(error.message, error)));
        response.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          const status = response.statusCode ?? 0;
          if (status < 200 || status > 299) return reject(fail(`HTTP ${status}: ${body.slice(0, 200)}`));
          let secretString: unknown;
          try {
            secretString = (JSON.parse(body) as { SecretString?: unknown }).SecretString;
          } catch (error) {
            return reject(fail('the answer is not JSON', error));
          }
          if (typeof secretString !== 'string' || secretString === '') return reject(fail('the answer has no SecretString'));
          resolve(secretString);
        });
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${requestTimeoutMs} ms`)));
    outgoing.on('error', (error) => reject(fail(error.message, error)));
    outgoing.end();
  });
};
