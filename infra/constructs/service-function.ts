import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  LoggingFormat,
  ParamsAndSecretsLayerVersion,
  ParamsAndSecretsLogLevel,
  ParamsAndSecretsVersions,
  Runtime,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { NagSuppressions } from 'cdk-nag';
import { functionBundling, sideModuleCommand, sideModulesOf, type FunctionBundling } from '../bundling';
import { functionConfigs, lambdaRuntimeVariables, type FunctionName } from '../../shared/config/function-config';
import { requiredVariables } from '../../shared/config/variables';
import type { QueueName, RouteAccess } from '../../shared/topology/routes';
import type { ServiceSecrets } from './service-secrets';
import type { WorkQueue } from './work-queue';

/** What every service function can be granted: the table, the queues and the secrets. */
export interface ServiceResources {
  table: ITable;
  /** Logical id of the table in the stack, for the IAM5 suppression of its index ARNs. */
  tableLogicalId: string;
  queues: Map<QueueName, WorkQueue>;
  secrets: ServiceSecrets;
}

/**
 * The DynamoDB actions of each table access of the route table (RouteAccess.table): what the
 * functions of that access call, on the table and its indexes, and nothing else. Not CDK's
 * grantReadData / grantReadWriteData, which also give Scan, DescribeTable and GetRecords /
 * GetShardIterator on the table, none of which a function calls. A transaction's items are
 * authorised as their own actions (a ConditionCheck as ConditionCheckItem); the stream
 * consumers read the stream through their event source mapping's own grant. The permission
 * test (test/infra/permissions.test.ts) records what each function calls and checks that every
 * action of an access is called by one of its functions.
 */
export const tableActions: Record<Exclude<RouteAccess['table'], 'none'>, readonly string[]> = {
  read: ['dynamodb:GetItem', 'dynamodb:Query'],
  readWrite: [
    'dynamodb:GetItem',
    'dynamodb:BatchGetItem',
    'dynamodb:Query',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:BatchWriteItem',
    'dynamodb:ConditionCheckItem',
  ],
};

/** Options of one service function. */
export interface ServiceFunctionProps {
  /** Route or consumer name (kebab-case). */
  name: string;
  /** Repository root; `handler` is relative to it. */
  projectRoot: string;
  /** Handler module relative to the repository root; it exports `handler`. */
  handler: string;
  /** What the function may touch; it gets exactly this. */
  access: RouteAccess;
  timeoutSeconds: number;
  memoryMb: number;
  /** One line for the Lambda console. */
  description: string;
  resources: ServiceResources;
  /** Production: the log group is retained when the stack goes. */
  production: boolean;
  /** Extra, non-secret environment variables. */
  environment?: Record<string, string>;
}

const outputFormats: Record<FunctionBundling['format'], OutputFormat> = { esm: OutputFormat.ESM, cjs: OutputFormat.CJS };
const logLevels: Record<FunctionBundling['logLevel'], LogLevel> = {
  verbose: LogLevel.VERBOSE,
  debug: LogLevel.DEBUG,
  info: LogLevel.INFO,
  warning: LogLevel.WARNING,
  error: LogLevel.ERROR,
  silent: LogLevel.SILENT,
};

const { alias: _alias, ...settings } = functionBundling;

/**
 * The esbuild settings of every function: `functionBundling` (infra/bundling.ts, plain data
 * shared with the benchmark) with its format and log level as aws-lambda-nodejs enums, and
 * its `alias` as the `--alias:` flags NodejsFunction has no setting of its own for.
 */
export const bundlingOptions = {
  ...settings,
  format: outputFormats[functionBundling.format],
  logLevel: logLevels[functionBundling.logLevel],
  esbuildArgs: { '--alias': Object.entries(functionBundling.alias).map(([name, path]) => `${name}=${path}`) },
};

/**
 * The bundling hooks of a function with side modules (infra/bundling.ts `sideModules`): each
 * is built into the asset beside index.mjs after NodejsFunction's own esbuild run.
 */
export const sideModuleHooks = (handler: string): Pick<BundlingOptions, 'commandHooks'> => {
  const sides = sideModulesOf(handler);
  if (sides.length === 0) return {};
  return {
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir: string, outputDir: string) => sides.map((side) => sideModuleCommand(side, inputDir, outputDir)),
    },
  };
};

/**
 * The AWS Parameters and Secrets Lambda Extension of a function that reads `secretCount`
 * secrets (shared/config/secrets.ts asks it over localhost instead of bundling the Secrets
 * Manager client). Its cache holds those secrets for 60 s, below the 300 s maximum, so that
 * with the function's own five-minute cache a rotated secret is seen within six minutes;
 * it logs warnings and errors only.
 */
export const secretsExtension = (secretCount: number): ParamsAndSecretsLayerVersion =>
  ParamsAndSecretsLayerVersion.fromVersion(ParamsAndSecretsVersions.V1_0_103, {
    cacheSize: secretCount,
    secretsManagerTtl: Duration.seconds(60),
    logLevel: ParamsAndSecretsLogLevel.WARN,
  });

/**
 * Refuses to synthesise a function whose environment lacks a variable that its handler's
 * configuration requires (shared/config/function-config.ts, keyed by the handler's file name
 * in functions/), since such a function would fail at init; AWS_REGION is set by Lambda
 * itself. A handler outside functions/ (a test fixture) declares no configuration.
 */
const assertConfigured = (name: string, handler: string, environment: Record<string, string>): void => {
  if (!handler.startsWith('functions/')) return;
  const configName = basename(handler, '.ts');
  if (!Object.hasOwn(functionConfigs, configName)) {
    throw new Error(`function ${name}: ${handler} has no configuration in shared/config/function-config.ts`);
  }
  const missing = requiredVariables(functionConfigs[configName as FunctionName]).filter(
    (variable) => !lambdaRuntimeVariables.includes(variable) && environment[variable] === undefined,
  );
  if (missing.length > 0) throw new Error(`function ${name}: its configuration requires ${missing.join(', ')}, which the stack does not set`);
};

/**
 * One Lambda function of the service (an HTTP route or a queue consumer) with its own log
 * group and its own role, which holds only what `access` lists:
 * - table `read` or `readWrite` → the actions `tableActions` gives it, on the table and its
 *   indexes; `none` → nothing, and no TABLE_NAME;
 * - each queue in `sendsTo` → SendMessage on that queue and its URL in `definition.urlVariable`;
 * - each secret → GetSecretValue on exactly that secret and its ARN in `<NAME>_SECRET_ARN`
 *   (never the value);
 *   a function with secrets also gets the Parameters and Secrets extension (`secretsExtension`),
 *   which sets its `PARAMETERS_SECRETS_EXTENSION_*` and `SECRETS_MANAGER_*` variables.
 * The role is the function's own (not AWSLambdaBasicExecutionRole): it may write to its own
 * log group only.
 */
export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const entry = join(props.projectRoot, props.handler);
    if (!existsSync(entry)) throw new Error(`function ${props.name}: handler file ${props.handler} does not exist`);
    const { access, resources } = props;

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${props.name} of ${Stack.of(this).stackName}: only what its route table entry lists`,
    });
    this.logGroup.grantWrite(this.role);

    // No NODE_OPTIONS=--enable-source-maps: it makes Node scan the whole bundle at import
    // (17-20 % of a function's load time). The map is deployed beside index.mjs in the asset,
    // and `npm run decode-stack` decodes a logged trace with it (docs/deploy.md).
    const environment: Record<string, string> = { ...props.environment };
    if (access.table !== 'none') environment.TABLE_NAME = resources.table.tableName;
    for (const queueName of access.sendsTo ?? []) {
      const workQueue = resources.queues.get(queueName);
      if (!workQueue) throw new Error(`function ${props.name}: unknown queue ${queueName}`);
      environment[workQueue.definition.urlVariable] = workQueue.queue.queueUrl;
    }
    for (const secretName of access.secrets ?? []) {
      environment[`${secretName}_SECRET_ARN`] = resources.secrets.get(secretName).secretArn;
    }
    assertConfigured(props.name, props.handler, environment);

    this.function = new NodejsFunction(this, 'Function', {
      entry,
      handler: 'handler',
      projectRoot: props.projectRoot,
      depsLockFilePath: join(props.projectRoot, 'package-lock.json'),
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      timeout: Duration.seconds(props.timeoutSeconds),
      memorySize: props.memoryMb,
      description: props.description,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: LoggingFormat.JSON,
      // Function-level X-Ray (the Lambda service's segments: init, invocation, overhead), not
      // the Powertools tracer: with aws-xray-sdk-core it adds 124 KiB to every bundle, which
      // the bundle budgets do not allow (docs/operations.md, "Tracing").
      tracing: Tracing.ACTIVE,
      environment,
      bundling: { ...bundlingOptions, ...sideModuleHooks(props.handler) },
      ...(access.secrets?.length ? { paramsAndSecrets: secretsExtension(access.secrets.length) } : {}),
    });

    if (access.table !== 'none') resources.table.grant(this.role, ...tableActions[access.table]);
    // SendMessage alone (grantSendMessages adds GetQueueAttributes and GetQueueUrl: the functions know the URL).
    for (const queueName of access.sendsTo ?? []) resources.queues.get(queueName)!.queue.grant(this.role, 'sqs:SendMessage');
    // GetSecretValue alone, what the Parameters and Secrets extension calls (grantRead adds DescribeSecret).
    for (const secretName of access.secrets ?? []) {
      this.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [resources.secrets.get(secretName).secretArn] }));
    }

    NagSuppressions.addResourceSuppressions(
      this.role,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason: 'Active X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords take no resource narrower than *.',
          appliesTo: ['Resource::*'],
        },
      ],
      true,
    );
    if (access.table !== 'none') {
      NagSuppressions.addResourceSuppressions(
        this.role,
        [
          {
            id: 'AwsSolutions-IAM5',
            reason:
              'Queries on the table include its global secondary indexes, whose ARNs are <table ARN>/index/<name>; the grant covers the indexes of this one table only.',
            appliesTo: [`Resource::<${resources.tableLogicalId}.Arn>/index/*`],
          },
        ],
        true,
      );
    }
  }
}
