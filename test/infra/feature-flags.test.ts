import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { projectRoot, ServiceStack } from '../../infra/service-stack';
import type { CfnTemplate } from './synth';

/**
 * cdk.json configures the feature flags a new CDK app of the installed aws-cdk-lib gets
 * (`cdk init` writes aws-cdk-lib's recommended-feature-flags.json), except those that would
 * replace a stateful resource (docs/deploy.md, "Feature flags"): the table, the queues, the
 * secrets, the topics and any KMS key keep their logical ids and properties under the flags.
 */
const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;
const cdkContext = readJson<{ context: Record<string, unknown> }>(`${projectRoot}/cdk.json`).context;
const recommended = readJson<Record<string, unknown>>(`${projectRoot}/node_modules/aws-cdk-lib/recommended-feature-flags.json`);

/** The flags docs/deploy.md names as left out (none today). */
const leftOut: string[] = [];

const statefulTypes = ['AWS::DynamoDB::Table', 'AWS::SQS::Queue', 'AWS::SecretsManager::Secret', 'AWS::SNS::Topic', 'AWS::KMS::Key'];

const statefulResources = (context: Record<string, unknown>, stage: string) => {
  const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
  const stack = new ServiceStack(app, `SimCheckoutService-${stage}`, { stage, emailFrom: 'orders@shop.example.net', operationsEmail: 'ops@shop.example.net', alarmEmail: 'oncall@shop.example.net' });
  const { Resources } = Template.fromStack(stack).toJSON() as CfnTemplate;
  return Object.fromEntries(Object.entries(Resources).filter(([, resource]) => statefulTypes.includes(resource.Type)));
};

describe('the CDK feature flags', () => {
  it('are those a new CDK app of the installed aws-cdk-lib gets, but the ones left out', () => {
    const expected = Object.fromEntries(Object.entries(recommended).filter(([flag]) => !leftOut.includes(flag)));
    expect(cdkContext).toEqual(expected);
  });

  it.each(['dev', 'production'])('leave the table, queues, secrets, topics and keys of %s as they are without any flag', (stage) => {
    const withFlags = statefulResources(cdkContext, stage);
    expect(Object.keys(withFlags).length).toBeGreaterThanOrEqual(10);
    expect(withFlags).toEqual(statefulResources({}, stage));
  }, 60_000);
});
