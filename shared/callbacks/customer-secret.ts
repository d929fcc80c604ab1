import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { getSecret } from '../config/secrets';
import { key } from '../db/keys';
import { customerWebhookSecret } from './signing';

/** Why a customer's receipt signing secret cannot be given. */
export class ReceiptSecretUnavailable extends Error {
  override name = 'ReceiptSecretUnavailable';
}

/**
 * The `whsec_...` secret with which the receipts of a customer's messages are signed (the
 * customer of the API key that sent them), for handing to that customer so their receiver
 * can verify the webhook-signature header. Derived from CALLBACK_SIGNING_SECRET (its value,
 * or the Secrets Manager secret of CALLBACK_SIGNING_SECRET_SECRET_ARN); refused for a
 * customer that is not in the table.
 */
export const customerReceiptSecret = async (
  deps: { db: DynamoDBDocumentClient; tableName: string },
  customerId: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> => {
  const master = await getSecret('CALLBACK_SIGNING_SECRET', env);
  if (!master) throw new ReceiptSecretUnavailable('CALLBACK_SIGNING_SECRET is not set (nor CALLBACK_SIGNING_SECRET_SECRET_ARN).');
  const found = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: key.customer(customerId) }));
  if (!found.Item) throw new ReceiptSecretUnavailable(`unknown customer ${customerId}`);
  return customerWebhookSecret(master, customerId);
};
