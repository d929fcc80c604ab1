import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { httpOperatorProvisioning } from '../adapters/operator-provisioning/provisioning-api';
import type { FunctionConfig } from '../config/function-config';
import { getSecret } from '../config/secrets';
import { documentClient } from '../db/client';
import { sqsConsumer } from '../queues/consumer';
import { sqsClient } from '../queues/sqs-client';
import { parseOperatorJob } from '../sim-actions/operator-queue';
import { sendAction, type SendActionDeps } from '../sim-actions/send-action';
import { queueDefinition } from '../topology/queues';

/** What the send-sim-action consumer needs: sending an action, and its queue (whose messages it hides for retries). */
export interface SendSimActionDeps extends SendActionDeps {
  sqs: SQSClient;
  queueUrl: string;
}

/** The deps of the send-sim-action function, from its configuration (read once at init). */
export const sendSimActionDeps = (config: FunctionConfig<'send-sim-action'>): SendSimActionDeps => ({
  db: documentClient(config),
  tableName: config.tableName,
  sqs: sqsClient(config),
  queueUrl: config.operatorActionQueueUrl,
  ...(config.operatorProvisioningUrl
    ? {
        provisioning: httpOperatorProvisioning({
          baseUrl: config.operatorProvisioningUrl,
          secret: () => getSecret('OPERATOR_PROVISIONING_SECRET'),
          extraCaCertificates: config.extraCaCertificates,
        }),
      }
    : {}),
  retrySchedule: config.retrySchedule,
  maxAttempts: queueDefinition('operator-actions').maxReceiveCount,
  now: Date.now,
});

/**
 * Consumer of the operator-actions queue (issue #33): one message is one action for the
 * operator's provisioning API (shared/sim-actions/send-action.ts). Each receive is one attempt
 * (ApproximateReceiveCount); a retry hides the message for the schedule's wait.
 */
export const sendSimActionConsumer = (deps: SendSimActionDeps) =>
  sqsConsumer('send-sim-action', async (record) =>
    sendAction(deps, parseOperatorJob(record.body), {
      number: Math.max(1, Number(record.attributes?.ApproximateReceiveCount ?? 1)),
      retryAfter: async (seconds) => {
        await deps.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: deps.queueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: seconds }));
      },
    }),
  );
