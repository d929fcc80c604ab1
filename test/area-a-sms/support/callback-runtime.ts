import type { LocalRuntime } from '../../../local/runtime';
import { lateBound } from '../../support/late-bound';
import { selfSignedCertificate, startHttpsReceiver, type HttpsReceiver, type TestCertificate } from '../../support/https-receiver';
import { useTestRuntime } from '../../support/runtime';
import { smsSeed } from './seed';

/** The master secret the SMS suites' runtimes sign callbacks with (CALLBACK_SIGNING_SECRET). */
export const masterSecret = 'test-master-secret';

/** An ISO 8601 instant with milliseconds and the `+00:00` offset, as receipts carry them. */
export const isoWithOffset = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;

let counter = 0;
/** A label made unique within the run (process id and a counter): message ids, callback paths. */
export const uniqueId = (label: string): string => `${label}-${process.pid}-${(counter += 1)}`;

/** What useCallbackRuntime gives a suite: the runtime, its callback receiver and, when asked, a second one for lifecycle events. */
export interface CallbackRuntime {
  runtime: LocalRuntime;
  /** The HTTPS receiver callbacks go to (`${receiver.url}/ok/...`). */
  receiver: HttpsReceiver;
  /** A receiver that checks lifecycle events against the OpenAPI document (with `subscribers: true`). */
  subscribers: HttpsReceiver;
}

/**
 * The SMS suites' fixture: a self-signed certificate and an HTTPS receiver trusted by the
 * runtime (NODE_EXTRA_CA_CERTS, `localhost` allowed as a callback host, callbacks signed with
 * `masterSecret`), then the test runtime with the SMS seed and `env`; all stopped after the
 * file, with `stopAfter`.
 */
export const useCallbackRuntime = (
  env: Record<string, string>,
  options: { subscribers?: boolean; stopAfter?: () => Promise<void> | void } = {},
): CallbackRuntime => {
  const receiver = lateBound<HttpsReceiver>('the callback receiver');
  const subscribers = lateBound<HttpsReceiver>('the lifecycle event receiver');
  let certificate: TestCertificate | undefined;
  const started: HttpsReceiver[] = [];
  const runtime = useTestRuntime(
    async () => {
      certificate = selfSignedCertificate();
      started.push(await startHttpsReceiver(certificate));
      receiver.bind(started[0]);
      if (options.subscribers) {
        started.push(await startHttpsReceiver(certificate, { lifecycleEvents: true }));
        subscribers.bind(started[1]);
      }
      return {
        seed: smsSeed,
        env: {
          CALLBACK_ALLOWED_HOSTS: 'localhost',
          // Set only in the runtime's environment, long after this process started.
          NODE_EXTRA_CA_CERTS: certificate.certPath,
          CALLBACK_SIGNING_SECRET: masterSecret,
          ...env,
        },
      };
    },
    {
      stopAfter: async () => {
        for (const server of started) await server.stop();
        certificate?.remove();
        await options.stopAfter?.();
      },
    },
  );
  return { runtime, receiver: receiver.value, subscribers: subscribers.value };
};
