import { createAwsSmsEmulator, demoAwsSms, type AwsSmsEmulator } from './aws-sms-emulator';
import { demoSecrets } from './demo-config';
import type { RuntimeCleanups } from './runtime-cleanups';
import { simulatorSettingsFromEnv, startSmsSimulator, type SmsSimulator } from './sms-simulator';
import type { LocalTopics } from './topics';

/**
 * The runtime's two SMS stand-ins: the SMS network simulator (the provider HTTP API, with the
 * demo token and receipt secret unless given) and the AWS End User Messaging SMS emulator,
 * which publishes its events into the local topics. Both take their outcome settings from the
 * environment given over process.env, and stop with the runtime.
 */
export const startSmsStandIns = async (
  given: Record<string, string>,
  topics: LocalTopics,
  quiet: boolean | undefined,
  cleanups: RuntimeCleanups,
): Promise<{ simulator: SmsSimulator; awsSms: AwsSmsEmulator }> => {
  const secrets = { ...demoSecrets, ...given };
  const simulator = await startSmsSimulator({
    token: secrets.SMS_PROVIDER_TOKEN,
    receiptSecret: secrets.SMS_RECEIPT_SECRET,
    ...simulatorSettingsFromEnv({ ...process.env, ...given }),
    quiet,
  });
  cleanups.add(() => simulator.stop());
  const awsSms = createAwsSmsEmulator({
    publish: (topic, message) => topics.publish(topic, message),
    ...simulatorSettingsFromEnv({ ...process.env, ...given }),
    originationIdentity: given.SMS_ORIGINATION_IDENTITY ?? demoAwsSms.originationIdentity,
    configurationSet: given.SMS_CONFIGURATION_SET ?? demoAwsSms.configurationSet,
    quiet,
  });
  cleanups.add(() => awsSms.stop());
  return { simulator, awsSms };
};
