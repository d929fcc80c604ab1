/**
 * Configuration read from the environment. Deployed, the stack sets these variables; locally,
 * the local runtime does. Secrets are not here: see ./secrets.ts.
 */
export interface ServiceConfig {
  /** AWS region of the table and queues. */
  region: string;
  /** Name of the single DynamoDB table. */
  tableName: string;
  /** DynamoDB endpoint override (DynamoDB Local); unset in AWS. */
  dynamodbEndpoint?: string;
  /** SQS endpoint override (the local SQS emulator); unset in AWS. */
  sqsEndpoint?: string;
}

/** Reads the service configuration from `env` (process.env by default). */
export const readConfig = (env: NodeJS.ProcessEnv = process.env): ServiceConfig => ({
  region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'eu-west-2',
  tableName: env.TABLE_NAME ?? 'sim-service',
  dynamodbEndpoint: env.DYNAMODB_ENDPOINT || undefined,
  sqsEndpoint: env.SQS_ENDPOINT || undefined,
});
