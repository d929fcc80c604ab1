import type { CfnResource as CdkCfnResource } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../../shared/topology/routes';
import { queueDefinitions } from '../../shared/topology/queues';
import { synthesise, type Synthesised } from './synth';
import { actionsOn, allActions, environmentOf } from './template-queries';

const idOf = (synthesised: Synthesised, construct: { node: { defaultChild?: unknown } }): string =>
  synthesised.stack.getLogicalId(construct.node.defaultChild as CdkCfnResource);

/** Every function with its access and the logical ids of it and its role. */
const functionsOf = (synthesised: Synthesised) => [
  ...allRoutes().map((route) => ({ access: route.access, fn: synthesised.stack.routeFunctions.get(route.name)! })),
  ...queueDefinitions.map((queue) => ({ access: queue.access, fn: synthesised.stack.consumerFunctions.get(queue.name)! })),
].map(({ access, fn }) => ({ access, id: idOf(synthesised, fn.function), roleId: idOf(synthesised, fn.role) }));

describe('e-mail and operations notifications in the stack', () => {
  let synthesised: Synthesised;
  beforeAll(() => {
    synthesised = synthesise({ stage: 'dev', emailFrom: 'orders@shop.example.net', operationsEmail: 'ops@shop.example.net' });
  });

  it('lets only the functions that send e-mail use SES, as the sender domain identity, with EMAIL_FROM', () => {
    const functions = functionsOf(synthesised);
    expect(functions.some((entry) => entry.access.sendsEmail)).toBe(true);
    for (const entry of functions) {
      const sesActions = allActions(synthesised.json, entry.roleId).filter((action) => action.startsWith('ses:'));
      const environment = environmentOf(synthesised.json, entry.id);
      if (entry.access.sendsEmail) {
        expect(sesActions.sort()).toEqual(['ses:SendEmail', 'ses:SendRawEmail']);
        expect(environment.EMAIL_FROM).toBe('orders@shop.example.net');
      } else {
        expect(sesActions).toEqual([]);
        expect(environment.EMAIL_FROM).toBeUndefined();
      }
    }
    const statements = JSON.stringify(synthesised.json.Resources);
    expect(statements).toContain(':identity/shop.example.net');
  });

  it('lets only the functions that notify operations publish to the notifications topic', () => {
    const topicId = idOf(synthesised, synthesised.stack.notifications.topic);
    const functions = functionsOf(synthesised);
    expect(functions.some((entry) => entry.access.notifiesOperations)).toBe(true);
    for (const entry of functions) {
      const publish = actionsOn(synthesised.json, entry.roleId, topicId);
      const environment = environmentOf(synthesised.json, entry.id);
      if (entry.access.notifiesOperations) {
        expect(publish).toContain('sns:Publish');
        expect(environment.OPERATIONS_TOPIC_ARN).toEqual({ Ref: topicId });
      } else {
        expect(publish).toEqual([]);
        expect(environment.OPERATIONS_TOPIC_ARN).toBeUndefined();
      }
    }
  });

  it('subscribes the operations e-mail address to the notifications topic and outputs its ARN', () => {
    synthesised.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@shop.example.net',
      TopicArn: { Ref: idOf(synthesised, synthesised.stack.notifications.topic) },
    });
    expect(Object.keys(synthesised.json.Outputs ?? {})).toContain('NotificationTopicArn');
  });

  it('never sets the local outbox variables, which would bypass SES and SNS', () => {
    for (const entry of functionsOf(synthesised)) {
      const environment = environmentOf(synthesised.json, entry.id);
      expect(environment.EMAIL_OUTBOX_DIR).toBeUndefined();
      expect(environment.OPERATIONS_OUTBOX_DIR).toBeUndefined();
    }
  });

  it('passes the cdk-nag AwsSolutions checks with no unsuppressed finding', () => {
    const nag = Match.stringLikeRegexp('AwsSolutions-.*');
    const findings = [...synthesised.annotations.findError('*', nag), ...synthesised.annotations.findWarning('*', nag)];
    expect(findings.map((finding) => `${finding.id}: ${String(finding.entry.data).split('\n')[0]}`)).toEqual([]);
  });

  it('derives the SES identity from a display-form sender address', () => {
    const display = synthesise({ stage: 'dev', emailFrom: 'SIM Shop <orders@mail.example.org>' }, 'SimCheckoutService-display');
    const resources = JSON.stringify(display.json.Resources);
    expect(resources).toContain(':identity/mail.example.org');
    expect(resources).not.toContain(':identity/mail.example.org>');
    expect(resources).toContain('"EMAIL_FROM":"SIM Shop <orders@mail.example.org>"');
  });

  it('warns once at synth when no sender address is configured, saying what to do', () => {
    const withoutEmail = synthesise({ stage: 'dev' }, 'SimCheckoutService-noemail');
    const senders = [...queueDefinitions.filter((queue) => queue.access.sendsEmail), ...allRoutes().filter((route) => route.access.sendsEmail)].map(
      (owner) => ('handler' in owner ? owner.name : owner.consumer.name),
    );
    expect(senders).toEqual(['fulfil-order']);
    const warnings = withoutEmail.annotations.findWarning('*', Match.stringLikeRegexp('.*emailFrom.*'));
    expect(warnings.map((warning) => [warning.id, warning.entry.data])).toEqual([
      [
        '/SimCheckoutService-noemail',
        'No emailFrom context, so fulfil-order cannot e-mail receipts and invoices (their fulfilment messages end in the dead-letter queue). ' +
          'Deploy with -c emailFrom=orders@<your domain>, a domain verified in SES (or name the verified identity with -c emailIdentity=...); docs/deploy.md, "Deploy". ' +
          '[ack: service:email-not-configured]',
      ],
    ]);
    expect(synthesise({ stage: 'dev', emailFrom: 'orders@shop.example.net' }, 'SimCheckoutService-email').annotations.findWarning('*', Match.stringLikeRegexp('.*emailFrom.*'))).toEqual([]);
  });
});
