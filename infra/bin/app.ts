/**
 * The CDK app: one ServiceStack per stage. `npx cdk synth|deploy [-c stage=production]`;
 * the stage defaults to `dev`. Production turns on deletion protection and retains data.
 */
import { App, Aspects, Tags } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ServiceStack } from '../service-stack';

const app = new App();
const stage = String(app.node.tryGetContext('stage') ?? 'dev');
if (!/^[a-z][a-z0-9-]{0,30}$/.test(stage)) {
  throw new Error(`stage must be lower-case letters, digits and dashes, starting with a letter: ${stage}`);
}
const smsProviderUrl = app.node.tryGetContext('smsProviderUrl') as string | undefined;
const publicBaseUrl = app.node.tryGetContext('publicBaseUrl') as string | undefined;
const emailFrom = app.node.tryGetContext('emailFrom') as string | undefined;
const emailIdentity = app.node.tryGetContext('emailIdentity') as string | undefined;
const operationsEmail = app.node.tryGetContext('operationsEmail') as string | undefined;
const tracing = String(app.node.tryGetContext('tracing') ?? 'true') !== 'false';
const alarmEmail = app.node.tryGetContext('alarmEmail') as string | undefined;
const logLevel = app.node.tryGetContext('logLevel') as string | undefined;
const smsProvider = String(app.node.tryGetContext('smsProvider') ?? 'http');
if (smsProvider !== 'http' && smsProvider !== 'aws') throw new Error(`smsProvider must be http or aws, not ${smsProvider}`);
const smsOriginationIdentity = app.node.tryGetContext('smsOriginationIdentity') as string | undefined;
const smsTwoWay = String(app.node.tryGetContext('smsTwoWay') ?? 'false') === 'true';
const smsPhoneNumberId = app.node.tryGetContext('smsPhoneNumberId') as string | undefined;
const feedPrincipalArn = app.node.tryGetContext('feedPrincipalArn') as string | undefined;
const operatorProvisioningUrl = app.node.tryGetContext('operatorProvisioningUrl') as string | undefined;
if (operatorProvisioningUrl !== undefined && !/^https:\/\/[^\s/]+/.test(operatorProvisioningUrl)) {
  throw new Error(`operatorProvisioningUrl must be an https:// URL (the operator's provisioning API), not ${operatorProvisioningUrl}`);
}
if (feedPrincipalArn !== undefined && !/^arn:aws[a-z-]*:iam::\d{12}:(role|user)\/[\w+=,.@/-]+$/.test(feedPrincipalArn)) {
  throw new Error(`feedPrincipalArn must be the ARN of an IAM role or user (arn:aws:iam::123456789012:role/operator-feed), not ${feedPrincipalArn}`);
}

const tags = { service: 'sim-checkout-service', stage };

new ServiceStack(app, `SimCheckoutService-${stage}`, {
  stage,
  smsProviderUrl,
  publicBaseUrl,
  tracing,
  alarmEmail,
  logLevel,
  emailFrom,
  emailIdentity,
  operationsEmail,
  smsProvider,
  smsOriginationIdentity,
  smsTwoWay,
  smsPhoneNumberId,
  feedPrincipalArn,
  operatorProvisioningUrl,
  description: `SIM developer API and storefront checkout (${stage})`,
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  // The stack's own tags (CloudFormation passes them on to what it creates): with the
  // @aws-cdk/core:explicitStackTags flag (cdk.json) Tags.of(app) below no longer sets them.
  tags,
});
// Every taggable resource, in the template.
for (const [name, value] of Object.entries(tags)) Tags.of(app).add(name, value);
Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
