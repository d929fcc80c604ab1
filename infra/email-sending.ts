import { Annotations, ArnFormat, type Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { FunctionOwner } from './function-owners';

/**
 * The verified SES identity the functions send as: `emailIdentity` when given, else the domain
 * of `emailFrom`, which may be a display form (`Shop <orders@shop.example.net>`). Undefined
 * without either.
 */
export const sesIdentityOf = (emailFrom: string | undefined, emailIdentity: string | undefined): string | undefined => {
  const senderAddress = emailFrom ? (/<([^<>]+)>\s*$/.exec(emailFrom)?.[1] ?? emailFrom).trim() : undefined;
  return emailIdentity ?? senderAddress?.split('@')[1];
};

/**
 * Lets exactly the functions whose access says `sendsEmail` send e-mail through SES, as the
 * one verified identity, with EMAIL_FROM. Without a sender, warns once on the stack, naming
 * the functions that cannot send and what to deploy with.
 */
export const grantEmailSending = (
  stack: Stack,
  owners: FunctionOwner[],
  settings: { emailFrom?: string; emailIdentity?: string },
): void => {
  const identity = sesIdentityOf(settings.emailFrom, settings.emailIdentity);
  const withoutEmail: string[] = [];
  for (const { name, access, fn } of owners) {
    if (!access.sendsEmail) continue;
    if (settings.emailFrom && identity) {
      fn.function.addEnvironment('EMAIL_FROM', settings.emailFrom);
      fn.role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['ses:SendEmail', 'ses:SendRawEmail'],
          resources: [stack.formatArn({ service: 'ses', resource: 'identity', resourceName: identity, arnFormat: ArnFormat.SLASH_RESOURCE_NAME })],
        }),
      );
    } else {
      withoutEmail.push(name);
    }
  }
  if (withoutEmail.length > 0) {
    // Once for the stack, saying what to do (not once per function that would send).
    Annotations.of(stack).addWarningV2(
      'service:email-not-configured',
      `No emailFrom context, so ${withoutEmail.join(', ')} cannot e-mail receipts and invoices (their fulfilment messages end in the dead-letter queue). ` +
        'Deploy with -c emailFrom=orders@<your domain>, a domain verified in SES (or name the verified identity with -c emailIdentity=...); docs/deploy.md, "Deploy".',
    );
  }
};
