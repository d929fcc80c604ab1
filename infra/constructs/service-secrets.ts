import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { NagSuppressions } from 'cdk-nag';
import type { SecretName } from '../../shared/topology/routes';

/** Options of the service secrets. */
export interface ServiceSecretsProps {
  /** Every secret name some function reads. */
  names: SecretName[];
  /** Production: the secrets are retained when the stack goes. */
  production: boolean;
}

/** The Secrets Manager name of a service secret: `<stack name>/<SECRET_NAME>`. */
export const secretPhysicalName = (stackName: string, name: SecretName): string => `${stackName}/${name}`;

/**
 * One Secrets Manager secret per secret name the functions read. The stack creates each with
 * a random placeholder value; the operator puts the real value in (docs/deploy.md). Values
 * never pass through CloudFormation or the functions' environment: a function gets
 * `<NAME>_SECRET_ARN` and reads the value at run time (shared/config/secrets.ts).
 */
export class ServiceSecrets extends Construct {
  readonly secrets = new Map<SecretName, Secret>();

  constructor(scope: Construct, id: string, props: ServiceSecretsProps) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;
    for (const name of [...new Set(props.names)].sort()) {
      const secret = new Secret(this, name, {
        secretName: secretPhysicalName(stackName, name),
        description: `${name} of ${stackName}: the stack stores a random placeholder; set the real value with aws secretsmanager put-secret-value.`,
        generateSecretString: { passwordLength: 40, excludePunctuation: true },
        removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      });
      NagSuppressions.addResourceSuppressions(secret, [
        {
          id: 'AwsSolutions-SMG4',
          reason:
            'Credentials shared with parties outside AWS (payment processor, SMS provider, the storefront, callback receivers): a rotation must be coordinated with the other side, so the operator rotates them with put-secret-value; the functions re-read them every five minutes.',
        },
      ]);
      this.secrets.set(name, secret);
    }
  }

  /** The secret of a name; throws when the stack did not create it. */
  get(name: SecretName): Secret {
    const secret = this.secrets.get(name);
    if (!secret) throw new Error(`secret ${name} is not part of the stack`);
    return secret;
  }
}
