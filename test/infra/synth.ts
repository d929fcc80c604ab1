/**
 * Synthesises the service stack for the infrastructure tests: bundling skipped (no esbuild
 * run), the feature flags of cdk.json applied as `cdk synth` applies them, and cdk-nag's
 * AwsSolutions checks on, so the annotations can be asserted.
 */
import { readFileSync } from 'node:fs';
import { App, Aspects } from 'aws-cdk-lib';
import { Annotations, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { projectRoot, ServiceStack, type ServiceStackProps } from '../../infra/service-stack';

/** A synthesised stack with its template as plain JSON. */
export interface Synthesised {
  stack: ServiceStack;
  template: Template;
  json: CfnTemplate;
  annotations: Annotations;
}

/** The parts of a CloudFormation template the tests read. */
export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown }>;
}

/** One CloudFormation resource. */
export interface CfnResource {
  Type: string;
  Properties?: Record<string, any>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

const cdkJsonContext = (): Record<string, unknown> =>
  (JSON.parse(readFileSync(`${projectRoot}/cdk.json`, 'utf8')) as { context?: Record<string, unknown> }).context ?? {};

/**
 * Builds and synthesises one ServiceStack (bundling skipped). `checks: false` leaves out
 * cdk-nag and CDK's built-in CloudFormation validation (a WebAssembly linter that takes most of
 * a synthesis: about 9 s of CPU the first time in a process, 1 s after), for a test that reads
 * only the template (test/infra/permissions.test.ts).
 */
export const synthesise = (props: ServiceStackProps, stackName = `SimCheckoutService-${props.stage}`, options: { checks?: boolean } = {}): Synthesised => {
  const checks = options.checks !== false;
  const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: checks });
  const stack = new ServiceStack(app, stackName, props);
  if (checks) Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
  const template = Template.fromStack(stack);
  return { stack, template, json: template.toJSON() as CfnTemplate, annotations: Annotations.fromStack(stack) };
};
