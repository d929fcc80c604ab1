import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getSecret } from '../../shared/config/secrets';

/** One request the extension stand-in received. */
interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
}

/**
 * A local stand-in for the AWS Parameters and Secrets Lambda Extension: answers
 * `/secretsmanager/get?secretId=...` from `answers` (by secret id), records every request.
 */
const stubAnswers = new Map<string, { status: number; body: string }>();
const received: Received[] = [];
let server: Server;
let port: number;

const arnOf = (suffix: string) => `arn:aws:secretsmanager:eu-west-2:123456789012:secret:SimCheckoutService-dev/${suffix}`;
const getSecretValueAnswer = (arn: string, secretString: string) =>
  JSON.stringify({ ARN: arn, Name: arn.split(':').pop(), SecretString: secretString, VersionId: 'v1', VersionStages: ['AWSCURRENT'] });

beforeAll(async () => {
  server = createServer((incoming, outgoing) => {
    received.push({ method: incoming.method, url: incoming.url, headers: incoming.headers });
    const secretId = new URL(incoming.url ?? '/', 'http://localhost').searchParams.get('secretId') ?? '';
    const answer = stubAnswers.get(secretId) ?? { status: 400, body: '{"message":"unknown secret"}' };
    outgoing.writeHead(answer.status, { 'Content-Type': 'application/json' }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received.length = 0;
});

const deployedEnv = (variables: Record<string, string>): NodeJS.ProcessEnv => ({
  PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(port),
  AWS_SESSION_TOKEN: 'session-token-of-the-function',
  ...variables,
});

describe('getSecret', () => {
  it('uses the environment variable of the same name when it is set, without asking the extension', async () => {
    const env = deployedEnv({ STRIPE_SECRET_KEY: 'sk_test_local', STRIPE_SECRET_KEY_SECRET_ARN: arnOf('STRIPE_SECRET_KEY') });
    expect(await getSecret('STRIPE_SECRET_KEY', env)).toBe('sk_test_local');
    expect(received).toEqual([]);
  });

  it('answers undefined when the secret is not configured at all', async () => {
    expect(await getSecret('STRIPE_SECRET_KEY', deployedEnv({}))).toBeUndefined();
    expect(received).toEqual([]);
  });

  it('fetches a deployed secret from the extension by URL-encoded ARN with the session token, then serves it from its cache', async () => {
    const arn = arnOf('SMS_PROVIDER_TOKEN-a1B2c3');
    stubAnswers.set(arn, { status: 200, body: getSecretValueAnswer(arn, 'provider-token-1') });
    const env = deployedEnv({ SMS_PROVIDER_TOKEN_SECRET_ARN: arn });

    expect(await getSecret('SMS_PROVIDER_TOKEN', env)).toBe('provider-token-1');
    stubAnswers.set(arn, { status: 200, body: getSecretValueAnswer(arn, 'provider-token-2') });
    expect(await getSecret('SMS_PROVIDER_TOKEN', env)).toBe('provider-token-1');

    expect(received).toHaveLength(1);
    expect(received[0]!.method).toBe('GET');
    expect(received[0]!.url).toBe(
      '/secretsmanager/get?secretId=arn%3Aaws%3Asecretsmanager%3Aeu-west-2%3A123456789012%3Asecret%3ASimCheckoutService-dev%2FSMS_PROVIDER_TOKEN-a1B2c3',
    );
    expect(received[0]!.headers['x-aws-parameters-secrets-token']).toBe('session-token-of-the-function');
  });

  it('throws a clear error when the extension answers 4xx or 5xx, and caches nothing', async () => {
    const missing = arnOf('STRIPE_WEBHOOK_SECRET-missing');
    stubAnswers.set(missing, { status: 400, body: '{"message":"ResourceNotFoundException"}' });
    const env = deployedEnv({ STRIPE_WEBHOOK_SECRET_SECRET_ARN: missing });
    await expect(getSecret('STRIPE_WEBHOOK_SECRET', env)).rejects.toThrow(
      `secret STRIPE_WEBHOOK_SECRET could not be read through the Parameters and Secrets extension (port ${port}): HTTP 400: {"message":"ResourceNotFoundException"}`,
    );

    const broken = arnOf('SMS_RECEIPT_SECRET-broken');
    stubAnswers.set(broken, { status: 500, body: 'internal error' });
    const brokenEnv = deployedEnv({ SMS_RECEIPT_SECRET_SECRET_ARN: broken });
    await expect(getSecret('SMS_RECEIPT_SECRET', brokenEnv)).rejects.toThrow(
      `secret SMS_RECEIPT_SECRET could not be read through the Parameters and Secrets extension (port ${port}): HTTP 500: internal error`,
    );
    stubAnswers.set(broken, { status: 200, body: getSecretValueAnswer(broken, 'receipt-secret') });
    expect(await getSecret('SMS_RECEIPT_SECRET', brokenEnv)).toBe('receipt-secret');
    expect(received).toHaveLength(3);
  });

  it('throws a clear error when the answer carries no SecretString', async () => {
    const binary = arnOf('CALLBACK_SIGNING_SECRET-binary');
    stubAnswers.set(binary, { status: 200, body: JSON.stringify({ ARN: binary, SecretBinary: 'AAEC' }) });
    await expect(getSecret('CALLBACK_SIGNING_SECRET', deployedEnv({ CALLBACK_SIGNING_SECRET_SECRET_ARN: binary }))).rejects.toThrow(
      `secret CALLBACK_SIGNING_SECRET could not be read through the Parameters and Secrets extension (port ${port}): the answer has no SecretString`,
    );
  });

  it('throws a clear error when nothing listens on the extension port', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const env = deployedEnv({ PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(closedPort), STOREFRONT_SERVICE_TOKEN_SECRET_ARN: arnOf('STOREFRONT_SERVICE_TOKEN') });
    await expect(getSecret('STOREFRONT_SERVICE_TOKEN', env)).rejects.toThrow(
      new RegExp(`^secret STOREFRONT_SERVICE_TOKEN could not be read through the Parameters and Secrets extension \\(port ${closedPort}\\): .*ECONNREFUSED`),
    );
  });
});
