import { Match } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnResource as CdkCfnResource } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { gatewayAnswers } from '../../infra/constructs/gateway-responses';
import { resourcePath } from '../../infra/constructs/api-plan';
import { allRoutes, type RouteDefinition, type SecretName } from '../../shared/topology/routes';
import type { ServiceFunction } from '../../infra/constructs/service-function';
import { deadLetterQueueName, queueDefinitions, visibilityTimeoutSeconds } from '../../shared/topology/queues';
import { globalSecondaryIndexDeclarations } from '../../shared/db/table';
import { schedules } from '../../shared/topology/schedules';
import { streamConsumers } from '../../shared/topology/streams';
import { topicConsumers } from '../../shared/topology/topics';
import { functionConfigs, lambdaRuntimeVariables, type FunctionName } from '../../shared/config/function-config';
import { requiredVariables } from '../../shared/config/variables';
import { fixtureMethods, fixtureRoutes } from './fixture-routes';
import { synthesise, type Synthesised } from './synth';
import {
  actionsOn,
  allActions,
  apiMethods,
  dependencyCycle,
  environmentOf,
  idsOfType,
  referencedIds,
  roleOf,
  roleStatements,
} from './template-queries';

const logicalId = (synthesised: Synthesised, construct: { node: { defaultChild?: unknown } }): string =>
  synthesised.stack.getLogicalId(construct.node.defaultChild as CdkCfnResource);

/** Every function of the stack (routes and consumers) with its logical id and its access. */
const functionsOf = (synthesised: Synthesised) => {
  const { stack } = synthesised;
  const entry = (name: string, fn: ServiceFunction, access: RouteDefinition['access']) => ({
    name,
    id: logicalId(synthesised, fn.function),
    roleId: logicalId(synthesised, fn.role),
    access,
  });
  const routeAccess = new Map(fixtureRoutes.map((route) => [route.name, route.access]));
  return [
    ...[...stack.routeFunctions].map(([name, fn]) => entry(name, fn, routeAccess.get(name)!)),
    ...queueDefinitions.map((definition) =>
      entry(definition.consumer.name, stack.consumerFunctions.get(definition.name)!, definition.access),
    ),
    ...streamConsumers.map((definition) => entry(definition.name, stack.streamConsumers.get(definition.name)!.consumer, definition.access)),
    ...schedules.map((definition) => entry(definition.name, stack.scheduledFunctions.get(definition.name)!, definition.access)),
  ];
};

/** Every secret name that a fixture route or a queue consumer reads, sorted. */
const secretsInUse = (): string[] =>
  [...new Set([...fixtureRoutes, ...queueDefinitions].flatMap((owner) => owner.access.secrets ?? []))].sort();

const smsProviderUrl = 'https://sms.example.net/v1';

const dynamodbWrites = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

const expectNagClean = (synthesised: Synthesised) => {
  const nag = Match.stringLikeRegexp('AwsSolutions-.*');
  const findings = [
    ...synthesised.annotations.findError('*', nag),
    ...synthesised.annotations.findWarning('*', nag),
  ].map((finding) => `${finding.id}: ${String(finding.entry.data).split('\n')[0]}`);
  expect(findings).toEqual([]);
};

describe('the service stack over a route table with every kind of row (dev)', () => {
  let synthesised: Synthesised;
  beforeAll(() => {
    synthesised = synthesise({ stage: 'dev', routes: fixtureRoutes, smsProviderUrl });
  });

  it('gives every route its own function, invoked by its method on its resource path', () => {
    const { stack, json } = synthesised;
    const methods = apiMethods(json);
    const nameOf = new Map([...stack.routeFunctions].map(([name, fn]) => [logicalId(synthesised, fn.function), name]));
    expect(new Set(nameOf.values())).toEqual(new Set(fixtureRoutes.map((route) => route.name)));
    for (const route of fixtureRoutes) {
      const served = methods.filter((method) => method.httpMethod === route.method && method.path === resourcePath(route.path));
      expect(served.map((method) => nameOf.get(method.functionId)), `${route.method} ${route.path}`).toEqual([route.name]);
    }
  });

  it('has exactly the route methods plus an ANY to the right fallback on every resource', () => {
    const { stack, json } = synthesised;
    const nameOf = new Map([...stack.routeFunctions].map(([name, fn]) => [logicalId(synthesised, fn.function), name]));
    const actual = apiMethods(json).map((method) => `${method.httpMethod} ${method.path} → ${nameOf.get(method.functionId)}`);
    const expected = fixtureMethods.map((method) => `${method.httpMethod} ${method.path} → ${method.route}`);
    expect(actual.sort()).toEqual(expected.sort());
  });

  it('lets only API Gateway invoke the functions, and only from this API; a scheduled function only its own rule', () => {
    const { json, stack } = synthesised;
    const [apiId] = idsOfType(json, 'AWS::ApiGateway::RestApi');
    const permissions = idsOfType(json, 'AWS::Lambda::Permission').map((id) => json.Resources[id]!.Properties!);
    expect(permissions.length).toBeGreaterThan(0);
    const scheduledIds = [...stack.scheduledFunctions.values()].map((fn) => logicalId(synthesised, fn.function));
    const rules = idsOfType(json, 'AWS::Events::Rule');
    for (const permission of permissions) {
      if (scheduledIds.some((id) => referencedIds(permission.FunctionName).includes(id))) {
        expect(permission.Principal).toBe('events.amazonaws.com');
        expect(rules).toEqual(expect.arrayContaining(referencedIds(permission.SourceArn)));
        continue;
      }
      expect(permission.Principal).toBe('apigateway.amazonaws.com');
      expect(referencedIds(permission.SourceArn)).toContain(apiId);
    }
    // Each scheduled function has its rule, at its rate.
    expect(rules.map((id) => json.Resources[id]!.Properties!.ScheduleExpression).sort()).toEqual(schedules.map((definition) => `rate(${definition.everyMinutes} minutes)`).sort());
  });

  it('builds every function for Node.js 24 on arm64 with JSON logs in its own log group', () => {
    const { json } = synthesised;
    const functions = functionsOf(synthesised);
    expect(idsOfType(json, 'AWS::Lambda::Function').sort()).toEqual(functions.map((fn) => fn.id).sort());
    for (const fn of functions) {
      const properties = json.Resources[fn.id]!.Properties!;
      expect(properties.Runtime, fn.name).toBe('nodejs24.x');
      expect(properties.Architectures, fn.name).toEqual(['arm64']);
      expect(properties.Handler, fn.name).toBe('index.handler');
      expect(properties.LoggingConfig.LogFormat, fn.name).toBe('JSON');
      const [logGroupId] = referencedIds(properties.LoggingConfig.LogGroup);
      expect(json.Resources[logGroupId!]).toMatchObject({ Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 30 } });
      // No --enable-source-maps at run time (it costs a fifth of the load); the map is decoded afterwards.
      expect(environmentOf(json, fn.id), fn.name).not.toHaveProperty('NODE_OPTIONS');
    }
  });

  it('uses route timeouts and memory, defaulting to 10 s and 1024 MB, and consumer timeouts', () => {
    const { json, stack } = synthesised;
    for (const route of fixtureRoutes) {
      const properties = json.Resources[logicalId(synthesised, stack.routeFunctions.get(route.name)!.function)]!.Properties!;
      expect([properties.Timeout, properties.MemorySize], route.name).toEqual([route.timeoutSeconds ?? 10, route.memoryMb ?? 1024]);
    }
    expect(json.Resources[logicalId(synthesised, stack.routeFunctions.get('checkout-esim')!.function)]!.Properties).toMatchObject({
      Timeout: 20,
      MemorySize: 512,
    });
    for (const definition of queueDefinitions) {
      const properties = json.Resources[logicalId(synthesised, stack.consumerFunctions.get(definition.name)!.function)]!.Properties!;
      expect(properties.Timeout, definition.name).toBe(definition.consumerTimeoutSeconds);
    }
  });

  it('has one table with the keys, indexes and TTL of the table definition, on demand, with PITR', () => {
    const { template } = synthesised;
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: {
        KeySchema: [
          { AttributeName: 'PK', KeyType: 'HASH' },
          { AttributeName: 'SK', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: Match.arrayWith([
          { AttributeName: 'PK', AttributeType: 'S' },
          { AttributeName: 'SK', AttributeType: 'S' },
          { AttributeName: 'GSI1PK', AttributeType: 'S' },
          { AttributeName: 'GSI1SK', AttributeType: 'S' },
        ]),
        GlobalSecondaryIndexes: globalSecondaryIndexDeclarations(),
        TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
        StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        DeletionProtectionEnabled: false,
      },
    });
  });

  it('gives each queue a dead-letter queue, its redrive and six times the consumer timeout', () => {
    const { json, stack } = synthesised;
    // Each work queue and its DLQ, and the failure queue of each stream consumer.
    expect(idsOfType(json, 'AWS::SQS::Queue')).toHaveLength(queueDefinitions.length * 2 + streamConsumers.length);
    for (const definition of queueDefinitions) {
      const workQueue = stack.workQueues.get(definition.name)!;
      const queue = json.Resources[logicalId(synthesised, workQueue.queue)]!;
      const deadLetterId = logicalId(synthesised, workQueue.deadLetterQueue);
      expect(deadLetterId, definition.name).toContain(deadLetterQueueName(definition).replace(/-/g, ''));
      expect(queue.Properties, definition.name).toMatchObject({
        VisibilityTimeout: visibilityTimeoutSeconds(definition),
        SqsManagedSseEnabled: true,
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterId, 'Arn'] }, maxReceiveCount: definition.maxReceiveCount },
      });
      expect(visibilityTimeoutSeconds(definition)).toBe(6 * definition.consumerTimeoutSeconds);
      expect(json.Resources[deadLetterId]!.Properties, definition.name).toMatchObject({
        MessageRetentionPeriod: 14 * 24 * 3600,
        SqsManagedSseEnabled: true,
      });
      expect(json.Resources[deadLetterId]!.Properties!.RedrivePolicy).toBeUndefined();
    }
  });

  it('refuses non-TLS access to every queue', () => {
    const { json } = synthesised;
    const queues = idsOfType(json, 'AWS::SQS::Queue');
    const tlsOnly = idsOfType(json, 'AWS::SQS::QueuePolicy')
      .map((id) => json.Resources[id]!.Properties!)
      .filter((policy) =>
        policy.PolicyDocument.Statement.some(
          (statement: Record<string, any>) =>
            statement.Effect === 'Deny' && statement.Condition?.Bool?.['aws:SecureTransport'] === 'false',
        ),
      )
      .flatMap((policy) => referencedIds(policy.Queues));
    expect(tlsOnly.sort()).toEqual(queues.sort());
  });

  it('feeds each consumer from its queue in batches, reporting item failures', () => {
    const { json, stack } = synthesised;
    const mappings = idsOfType(json, 'AWS::Lambda::EventSourceMapping').map((id) => json.Resources[id]!.Properties!);
    expect(mappings).toHaveLength(queueDefinitions.length + streamConsumers.length);
    for (const definition of queueDefinitions) {
      const functionId = logicalId(synthesised, stack.consumerFunctions.get(definition.name)!.function);
      const queueId = logicalId(synthesised, stack.workQueues.get(definition.name)!.queue);
      const mapping = mappings.find((candidate) => referencedIds(candidate.FunctionName).includes(functionId));
      expect(mapping, definition.name).toMatchObject({
        BatchSize: definition.batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      });
    }
  });

  it("feeds each stream consumer from the table's stream: filtered to its item types, item failures reported, bisected, retried, then its failure queue", () => {
    const { json, stack } = synthesised;
    const tableId = logicalId(synthesised, stack.serviceTable.table);
    const mappings = idsOfType(json, 'AWS::Lambda::EventSourceMapping').map((id) => json.Resources[id]!.Properties!);
    for (const definition of streamConsumers) {
      const streamConsumer = stack.streamConsumers.get(definition.name)!;
      const functionId = logicalId(synthesised, streamConsumer.consumer.function);
      const failureId = logicalId(synthesised, streamConsumer.failureQueue);
      const mapping = mappings.find((candidate) => referencedIds(candidate.FunctionName).includes(functionId));
      expect(mapping, definition.name).toEqual({
        FunctionName: { Ref: functionId },
        EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
        StartingPosition: 'TRIM_HORIZON',
        BatchSize: definition.batchSize,
        BisectBatchOnFunctionError: true,
        MaximumRetryAttempts: definition.retryAttempts,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [failureId, 'Arn'] } } },
        FilterCriteria: {
          Filters: [
            { Pattern: JSON.stringify({ dynamodb: { NewImage: { type: { S: definition.itemTypes } } } }) },
            { Pattern: JSON.stringify({ dynamodb: { OldImage: { type: { S: definition.itemTypes } } } }) },
          ],
        },
      });
      const roleId = logicalId(synthesised, streamConsumer.consumer.role);
      // A consumer with read access writes nothing to the table (the list index consumer writes its items).
      const writes = actionsOn(json, roleId, tableId).filter((action) => dynamodbWrites.includes(action));
      if (definition.access.table === 'read') expect(writes, definition.name).toEqual([]);
      else expect(writes, definition.name).not.toEqual([]);
      expect(allActions(json, roleId)).toEqual(expect.arrayContaining(['dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:DescribeStream', 'dynamodb:ListStreams']));
      expect(json.Resources[failureId]!.Properties).toMatchObject({ MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true });
      const alarm = idsOfType(json, 'AWS::CloudWatch::Alarm')
        .map((id) => json.Resources[id]!.Properties!)
        .find((candidate) => referencedIds(candidate.Dimensions).includes(failureId));
      expect(alarm, definition.name).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 0 });
      expect(alarm!.AlarmDescription, definition.name).toBe(
        `Stream records the ${definition.name} consumer could not process: set aside at once (the message holds the record and the reason), or failed ${definition.retryAttempts + 1} times by an outage or the function itself (the message holds their positions: read them from the stream within 24 hours). Find the cause, then replay or repair them. Runbook: docs/operations.md#dead-letter-queue-not-empty`,
      );
    }
  });

  it('lets each stream consumer set aside a record it cannot process on its own failure queue, and no other queue of the kind', () => {
    const { json, stack } = synthesised;
    const failureIds = streamConsumers.map((definition) => logicalId(synthesised, stack.streamConsumers.get(definition.name)!.failureQueue));
    for (const definition of streamConsumers) {
      const streamConsumer = stack.streamConsumers.get(definition.name)!;
      const functionId = logicalId(synthesised, streamConsumer.consumer.function);
      const failureId = logicalId(synthesised, streamConsumer.failureQueue);
      const roleId = logicalId(synthesised, streamConsumer.consumer.role);
      // Its URL in the configuration the function requires (shared/config/function-config.ts).
      expect(environmentOf(json, functionId)[definition.failureQueueUrlVariable], definition.name).toEqual({ Ref: failureId });
      expect(requiredVariables(functionConfigs[definition.name as FunctionName]), definition.name).toContain(definition.failureQueueUrlVariable);
      expect(actionsOn(json, roleId, failureId), definition.name).toContain('sqs:SendMessage');
      for (const otherId of failureIds.filter((id) => id !== failureId)) expect(actionsOn(json, roleId, otherId), definition.name).toEqual([]);
    }
  });

  it('holds a stream record that fails the function itself by bisection and a bounded number of retries, never by the age of a record', () => {
    const { json, stack } = synthesised;
    const mappings = idsOfType(json, 'AWS::Lambda::EventSourceMapping').map((id) => json.Resources[id]!.Properties!);
    // docs/operations.md, "Stream records set aside": what the handler does not set aside is
    // retried at most retryAttempts times, bisected, then its position goes to the failure queue;
    // a MaximumRecordAgeInSeconds would drop records that never failed but waited behind a bulk load.
    const configuration = streamConsumers.map((definition) => {
      const streamConsumer = stack.streamConsumers.get(definition.name)!;
      const functionId = logicalId(synthesised, streamConsumer.consumer.function);
      const mapping = mappings.find((candidate) => referencedIds(candidate.FunctionName).includes(functionId))!;
      return {
        name: definition.name,
        timeout: json.Resources[functionId]!.Properties!.Timeout,
        batchSize: mapping.BatchSize,
        bisect: mapping.BisectBatchOnFunctionError,
        retries: mapping.MaximumRetryAttempts,
        maximumRecordAge: mapping.MaximumRecordAgeInSeconds ?? 'none',
        reportsItems: mapping.FunctionResponseTypes,
      };
    });
    expect(configuration).toEqual([
      { name: 'publish-lifecycle-events', timeout: 30, batchSize: 100, bisect: true, retries: 10, maximumRecordAge: 'none', reportsItems: ['ReportBatchItemFailures'] },
      { name: 'maintain-sim-lists', timeout: 60, batchSize: 500, bisect: true, retries: 20, maximumRecordAge: 'none', reportsItems: ['ReportBatchItemFailures'] },
    ]);
  });

  it('alarms to the operations topic as soon as a dead-letter queue holds a message', () => {
    const { json, stack } = synthesised;
    const [topicId] = idsOfType(json, 'AWS::SNS::Topic');
    expect(json.Resources[topicId!]!.Properties!.DisplayName).toBe('Operations alarms');
    const alarms = idsOfType(json, 'AWS::CloudWatch::Alarm')
      .map((id) => json.Resources[id]!.Properties!)
      .filter((alarm) => alarm.MetricName === 'ApproximateNumberOfMessagesVisible');
    // One per dead-letter queue and one per stream consumer's failure queue; the other alarms: test/infra/operations.test.ts.
    expect(alarms).toHaveLength(queueDefinitions.length + streamConsumers.length);
    for (const definition of queueDefinitions) {
      const deadLetterId = logicalId(synthesised, stack.workQueues.get(definition.name)!.deadLetterQueue);
      const alarm = alarms.find((candidate) => referencedIds(candidate.Dimensions).includes(deadLetterId));
      expect(alarm, definition.name).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLetterId, 'QueueName'] } }],
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 0,
        TreatMissingData: 'notBreaching',
        AlarmActions: [{ Ref: topicId }],
      });
    }
  });

  it('answers every API Gateway error itself as JSON {detail, code} with the right status', () => {
    const { json } = synthesised;
    const responses = idsOfType(json, 'AWS::ApiGateway::GatewayResponse').map((id) => json.Resources[id]!.Properties!);
    expect(responses.map((response) => response.ResponseType).sort()).toEqual(
      gatewayAnswers.map((answer) => answer.type.responseType).sort(),
    );
    for (const response of responses) {
      expect(Object.keys(response.ResponseTemplates), response.ResponseType).toEqual(['application/json']);
      const body = JSON.parse(response.ResponseTemplates['application/json']);
      expect(Object.keys(body), response.ResponseType).toEqual(['detail', 'code']);
      expect(response.ResponseParameters['gatewayresponse.header.Content-Type'], response.ResponseType).toBe("'application/json'");
      // The request id, mapped (not a quoted literal), as every function answer carries it.
      expect(response.ResponseParameters['gatewayresponse.header.X-Request-Id'], response.ResponseType).toBe('context.requestId');
    }
    const answer = (type: string) => {
      const response = responses.find((candidate) => candidate.ResponseType === type)!;
      return { status: response.StatusCode, code: JSON.parse(response.ResponseTemplates['application/json']).code };
    };
    expect(answer('THROTTLED')).toEqual({ status: '429', code: 'rate_limited' });
    expect(answer('REQUEST_TOO_LARGE')).toEqual({ status: '413', code: 'payload_too_large' });
    expect(answer('INTEGRATION_TIMEOUT')).toEqual({ status: '504', code: 'gateway_timeout' });
    expect(answer('INTEGRATION_FAILURE')).toEqual({ status: '502', code: 'bad_gateway' });
    expect(answer('MISSING_AUTHENTICATION_TOKEN')).toEqual({ status: '404', code: 'not_found' });
    expect(answer('ACCESS_DENIED')).toEqual({ status: '403', code: 'access_denied' });
    expect(answer('BAD_REQUEST_BODY')).toEqual({ status: '400', code: 'invalid_request' });
    expect(answer('UNSUPPORTED_MEDIA_TYPE')).toEqual({ status: '415', code: 'unsupported_media_type' });
    // The catch-alls keep the status of the error they stand in for.
    expect(answer('DEFAULT_4XX')).toEqual({ status: undefined, code: 'bad_request' });
    expect(answer('DEFAULT_5XX')).toEqual({ status: undefined, code: 'internal_error' });
  });

  it('logs every request of the stage as JSON and throttles the stage', () => {
    const { json } = synthesised;
    const [stageId] = idsOfType(json, 'AWS::ApiGateway::Stage');
    const stage = json.Resources[stageId!]!.Properties!;
    expect(stage.StageName).toBe('dev');
    const format = JSON.parse(stage.AccessLogSetting.Format);
    expect(format).toMatchObject({ requestId: '$context.requestId', status: '$context.status', errorType: '$context.error.responseType' });
    // The log group's ARN without the `:*` suffix (@aws-cdk/aws-apigateway:logGroupDestinationArnWithoutWildcard).
    const [logGroupId] = referencedIds(stage.AccessLogSetting.DestinationArn).filter((id) => id in json.Resources);
    expect(json.Resources[logGroupId!]!.Type).toBe('AWS::Logs::LogGroup');
    expect(JSON.stringify(stage.AccessLogSetting.DestinationArn)).not.toContain(':*');
    expect(stage.MethodSettings).toEqual([
      expect.objectContaining({ HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 }),
    ]);
  });

  it('gives a function without table access no DynamoDB rights and no TABLE_NAME', () => {
    const { json } = synthesised;
    for (const fn of functionsOf(synthesised).filter((candidate) => candidate.access.table === 'none')) {
      expect(allActions(json, fn.roleId).filter((action) => action.startsWith('dynamodb:')), fn.name).toEqual([]);
      expect(environmentOf(json, fn.id).TABLE_NAME, fn.name).toBeUndefined();
    }
    expect(functionsOf(synthesised).filter((candidate) => candidate.access.table === 'none').map((fn) => fn.name)).toEqual(
      expect.arrayContaining(['default-fallback', 'list-plans', 'stripe-webhook']),
    );
    // The real route table gives the webhook only its queue and its secret (docs/fulfilment.md).
    expect(allRoutes().find((route) => route.name === 'stripe-webhook')!.access).toEqual({
      table: 'none',
      sendsTo: ['fulfilment'],
      secrets: ['STRIPE_WEBHOOK_SECRET'],
    });
  });

  it('lets a reading function query the table and its indexes but never write', () => {
    const { json, stack } = synthesised;
    const tableId = logicalId(synthesised, stack.serviceTable.table);
    const readers = functionsOf(synthesised).filter((fn) => fn.access.table === 'read');
    expect(readers.map((fn) => fn.name)).toEqual(expect.arrayContaining(['list-sims', 'list-sms']));
    for (const fn of readers) {
      const actions = actionsOn(json, fn.roleId, tableId);
      expect(actions, fn.name).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
      expect(allActions(json, fn.roleId).filter((action) => dynamodbWrites.includes(action)), fn.name).toEqual([]);
      expect(environmentOf(json, fn.id).TABLE_NAME, fn.name).toEqual({ Ref: tableId });
      const indexGrant = roleStatements(json, fn.roleId).some((statement) =>
        statement.Resource.some((resource) => JSON.stringify(resource).includes('/index/*')),
      );
      expect(indexGrant, fn.name).toBe(true);
    }
  });

  it('lets a read-write function write the table', () => {
    const { json, stack } = synthesised;
    const tableId = logicalId(synthesised, stack.serviceTable.table);
    for (const fn of functionsOf(synthesised).filter((candidate) => candidate.access.table === 'readWrite')) {
      expect(actionsOn(json, fn.roleId, tableId), fn.name).toEqual(
        expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem']),
      );
      expect(environmentOf(json, fn.id).TABLE_NAME, fn.name).toEqual({ Ref: tableId });
    }
  });

  it('lets only the functions that list a secret read it, by ARN', () => {
    const { json, stack } = synthesised;
    expect([...stack.secrets.secrets.keys()].sort()).toEqual(secretsInUse());
    for (const [name, secret] of stack.secrets.secrets) {
      const secretId = logicalId(synthesised, secret);
      expect(json.Resources[secretId]!.Properties!.Name).toBe(`SimCheckoutService-dev/${name}`);
      for (const fn of functionsOf(synthesised)) {
        const lists = fn.access.secrets?.includes(name) ?? false;
        expect(actionsOn(json, fn.roleId, secretId).includes('secretsmanager:GetSecretValue'), `${fn.name} ${name}`).toBe(lists);
        expect(environmentOf(json, fn.id)[`${name}_SECRET_ARN`], `${fn.name} ${name}`).toEqual(lists ? { Ref: secretId } : undefined);
      }
    }
  });

  it('gives the functions that read secrets the Parameters and Secrets extension, and no other function a layer', () => {
    const { json } = synthesised;
    const functions = functionsOf(synthesised);
    expect(functions.filter((fn) => fn.access.secrets?.length).map((fn) => fn.name)).toEqual(
      expect.arrayContaining(['send-sms', 'forward-receipt']),
    );
    const layerArns = (json as { Mappings?: Record<string, Record<string, Record<string, string>>> }).Mappings ?? {};
    for (const fn of functions) {
      const properties = json.Resources[fn.id]!.Properties!;
      const environment = environmentOf(json, fn.id);
      const extensionVariables = Object.keys(environment).filter(
        (name) => name.startsWith('PARAMETERS_SECRETS_EXTENSION_') || name.startsWith('SECRETS_MANAGER_') || name.startsWith('SSM_PARAMETER_STORE_'),
      );
      const secretCount = fn.access.secrets?.length ?? 0;
      if (secretCount === 0) {
        expect([properties.Layers, extensionVariables], fn.name).toEqual([undefined, []]);
        continue;
      }
      expect(properties.Layers, fn.name).toHaveLength(1);
      const [mapName, region, versionKey] = (properties.Layers[0] as { 'Fn::FindInMap': [string, { Ref: string }, string] })['Fn::FindInMap'];
      expect([region, versionKey], fn.name).toEqual([{ Ref: 'AWS::Region' }, '1x0x103xarm64']);
      expect(layerArns[mapName]!['eu-west-2']![versionKey], fn.name).toMatch(
        /^arn:aws:lambda:eu-west-2:\d{12}:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:\d+$/,
      );
      expect(environment, fn.name).toMatchObject({
        PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED: 'true',
        PARAMETERS_SECRETS_EXTENSION_CACHE_SIZE: String(secretCount),
        PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: '2773',
        PARAMETERS_SECRETS_EXTENSION_LOG_LEVEL: 'warn',
        SECRETS_MANAGER_TTL: '60',
      });
    }
  });

  it('lets only the producers of a queue send to it and only its consumer receive from it', () => {
    const { json, stack } = synthesised;
    for (const definition of queueDefinitions) {
      const queueId = logicalId(synthesised, stack.workQueues.get(definition.name)!.queue);
      for (const fn of functionsOf(synthesised)) {
        const produces = fn.access.sendsTo?.includes(definition.name) ?? false;
        const consumes = fn.name === definition.consumer.name;
        const actions = actionsOn(json, fn.roleId, queueId);
        expect(actions.includes('sqs:SendMessage'), `${fn.name} → ${definition.name}`).toBe(produces);
        expect(actions.includes('sqs:ReceiveMessage'), `${fn.name} ← ${definition.name}`).toBe(consumes);
        // A consumer that schedules its own retries (ChangeMessageVisibility) knows its queue's URL.
        const knowsUrl = produces || (consumes && definition.consumerSchedulesRetries === true);
        expect(environmentOf(json, fn.id)[definition.urlVariable], `${fn.name} ${definition.urlVariable}`).toEqual(
          knowsUrl ? { Ref: queueId } : undefined,
        );
      }
    }
  });

  it('keeps secret values out of the template and the environment', () => {
    const { json, stack } = synthesised;
    const secretNames = [...stack.secrets.secrets.keys()] as string[];
    for (const id of idsOfType(json, 'AWS::SecretsManager::Secret')) {
      const properties = json.Resources[id]!.Properties!;
      expect(properties.SecretString).toBeUndefined();
      expect(properties.GenerateSecretString).toBeDefined();
    }
    const tokens = new Set([
      logicalId(synthesised, stack.serviceTable.table),
      ...[...stack.workQueues.values()].map((workQueue) => logicalId(synthesised, workQueue.queue)),
      ...[...stack.streamConsumers.values()].map((streamConsumer) => logicalId(synthesised, streamConsumer.failureQueue)),
      ...[...stack.secrets.secrets.values()].map((secret) => logicalId(synthesised, secret)),
      logicalId(synthesised, stack.notifications.topic),
    ]);
    const [apiId] = idsOfType(json, 'AWS::ApiGateway::RestApi');
    const literals = new Map([
      ['SMS_PROVIDER_URL', smsProviderUrl],
      // Logging and metrics (docs/operations.md): the only other literals.
      ['LOG_LEVEL', 'INFO'],
      ['POWERTOOLS_SERVICE_NAME', 'sim-checkout-service-dev'],
      ['POWERTOOLS_METRICS_NAMESPACE', 'SimCheckoutService'],
    ]);
    for (const fn of functionsOf(synthesised)) {
      for (const [name, value] of Object.entries(environmentOf(json, fn.id))) {
        expect(secretNames, `${fn.name} ${name}`).not.toContain(name as SecretName);
        // The Parameters and Secrets extension's settings (numbers, flags, a log level); asserted above.
        if (/^(PARAMETERS_SECRETS_EXTENSION|SECRETS_MANAGER|SSM_PARAMETER_STORE)_[A-Z_]+$/.test(name) && fn.access.secrets?.length) {
          expect(value, `${fn.name} ${name}`).toMatch(/^(\d+|true|false|debug|info|warn|error|none)$/);
          continue;
        }
        if (typeof value === 'string') expect(value, `${fn.name} ${name}`).toBe(literals.get(name));
        else if (name === 'PUBLIC_BASE_URL') expect(referencedIds(value).filter((id) => !id.startsWith('AWS::'))).toEqual([apiId]);
        else expect(referencedIds(value).map((id) => tokens.has(id)), `${fn.name} ${name}`).toEqual([true]);
      }
    }
  });

  it('gives the functions that send SMS the provider URL and the public base URL of the stage', () => {
    const { json } = synthesised;
    const [apiId] = idsOfType(json, 'AWS::ApiGateway::RestApi');
    const functions = functionsOf(synthesised);
    const senders = functions.filter((fn) => fn.access.secrets?.includes('SMS_PROVIDER_TOKEN'));
    expect(senders.map((fn) => fn.name)).toContain('send-sms');
    for (const fn of functions) {
      const environment = environmentOf(json, fn.id);
      if (!senders.includes(fn)) {
        expect([environment.SMS_PROVIDER_URL, environment.PUBLIC_BASE_URL], fn.name).toEqual([undefined, undefined]);
        continue;
      }
      expect(environment.SMS_PROVIDER_URL, fn.name).toBe(smsProviderUrl);
      expect(environment.PUBLIC_BASE_URL, fn.name).toEqual({
        'Fn::Join': ['', ['https://', { Ref: apiId }, '.execute-api.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }, '/dev']],
      });
    }
  });

  it('gives each function a role of its own with no managed policy, writing only to its own log group', () => {
    const { json, stack } = synthesised;
    const fns = functionsOf(synthesised);
    expect(new Set(fns.map((fn) => fn.roleId)).size).toBe(fns.length);
    for (const fn of fns) {
      const role = json.Resources[fn.roleId]!.Properties!;
      expect(role.ManagedPolicyArns, fn.name).toBeUndefined();
      const logActions = roleStatements(json, fn.roleId).filter((statement) => statement.Action.some((action) => action.startsWith('logs:')));
      const [logGroupId] = referencedIds(json.Resources[fn.id]!.Properties!.LoggingConfig.LogGroup);
      expect(logActions.flatMap((statement) => statement.Resource.flatMap(referencedIds)), fn.name).toEqual([logGroupId]);
    }
    expect(stack.routeFunctions.size).toBe(fixtureRoutes.length);
  });

  it('outputs the API URL, the table name, every queue and DLQ URL, the stream consumers\' failure queue URLs and the secret names', () => {
    const { json, stack } = synthesised;
    const outputs = json.Outputs ?? {};
    const pascal = (name: string) => name.replace(/(^|[-_])([a-z])/g, (_, __, letter: string) => letter.toUpperCase());
    expect(Object.keys(outputs).sort()).toEqual(
      [
        'ApiUrl',
        'TableName',
        'AlarmTopicArn',
        'DashboardName',
        'NotificationTopicArn',
        ...queueDefinitions.flatMap((definition) => [
          `${pascal(definition.name)}QueueUrl`,
          `${pascal(definition.name)}DeadLetterQueueUrl`,
        ]),
        ...streamConsumers.map((definition) => `${pascal(definition.name)}FailureQueueUrl`),
        ...secretsInUse().map((name) => `Secret${pascal(name.toLowerCase())}`),
      ].sort(),
    );
    expect(outputs.ApiUrl!.Value).toEqual(expect.objectContaining({ 'Fn::Join': expect.anything() }));
    expect(outputs.TableName!.Value).toEqual({ Ref: logicalId(synthesised, stack.serviceTable.table) });
    expect(outputs.SecretStripeSecretKey!.Value).toBe('SimCheckoutService-dev/STRIPE_SECRET_KEY');
    expect(outputs.CallbacksDeadLetterQueueUrl!.Value).toEqual({
      Ref: logicalId(synthesised, stack.workQueues.get('callbacks')!.deadLetterQueue),
    });
    expect(outputs.MaintainSimListsFailureQueueUrl!.Value).toEqual({ Ref: logicalId(synthesised, stack.streamConsumers.get('maintain-sim-lists')!.failureQueue) });
  });

  it('has no dependency cycle, which CloudFormation would refuse only at deploy time', () => {
    expect(dependencyCycle(synthesised.json)).toBeUndefined();
  });

  it('passes the cdk-nag AwsSolutions checks with no unsuppressed finding', () => {
    expectNagClean(synthesised);
  });
});

describe('the service stack in production', () => {
  let synthesised: Synthesised;
  beforeAll(() => {
    synthesised = synthesise({ stage: 'production', routes: fixtureRoutes });
  });

  it('protects and retains the table', () => {
    synthesised.template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: { DeletionProtectionEnabled: true, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } },
    });
  });

  it('retains the queues, the secrets and the log groups', () => {
    const { json } = synthesised;
    for (const type of ['AWS::SQS::Queue', 'AWS::SecretsManager::Secret', 'AWS::Logs::LogGroup']) {
      for (const id of idsOfType(json, type)) expect(json.Resources[id]!.DeletionPolicy, `${type} ${id}`).toBe('Retain');
    }
  });

  it('names the API stage and the secrets after the stage', () => {
    const { json } = synthesised;
    const [stageId] = idsOfType(json, 'AWS::ApiGateway::Stage');
    expect(json.Resources[stageId!]!.Properties!.StageName).toBe('production');
    expect(json.Outputs!.SecretStripeSecretKey!.Value).toBe('SimCheckoutService-production/STRIPE_SECRET_KEY');
  });

  it('passes the cdk-nag AwsSolutions checks with no unsuppressed finding', () => {
    expectNagClean(synthesised);
  });
});

describe('the service stack over the real route table', () => {
  let synthesised: Synthesised;
  beforeAll(() => {
    synthesised = synthesise({ stage: 'dev' });
  });

  it('serves every route of allRoutes() with its own function and its method on its path', () => {
    const { stack, json } = synthesised;
    const methods = apiMethods(json);
    for (const route of allRoutes()) {
      const fn = stack.routeFunctions.get(route.name);
      expect(fn, route.name).toBeDefined();
      const functionId = logicalId(synthesised, fn!.function);
      expect(
        methods.some(
          (method) => method.httpMethod === route.method && method.path === resourcePath(route.path) && method.functionId === functionId,
        ),
        `${route.method} ${route.path}`,
      ).toBe(true);
    }
    expect(stack.routeFunctions.size).toBe(allRoutes().length);
  });

  it('gives every function each variable its configuration requires (shared/config/function-config.ts), so none fails at init', () => {
    const { stack, json } = synthesised;
    const deployed = [
      ...[...stack.routeFunctions].map(([name, fn]) => ({ name, fn })),
      ...queueDefinitions.map((definition) => ({ name: definition.consumer.name, fn: stack.consumerFunctions.get(definition.name)! })),
      ...streamConsumers.map((definition) => ({ name: definition.name, fn: stack.streamConsumers.get(definition.name)!.consumer })),
      ...[...stack.topicConsumers.values()].map((topic) => ({ name: topic.definition.consumer.name, fn: topic.consumer })),
      ...[...stack.scheduledFunctions].map(([name, fn]) => ({ name, fn })),
    ];
    // The topic consumers are deployed with their SMS features only (test/infra/aws-sms.test.ts checks them).
    const notDeployed = topicConsumers.filter((topic) => !stack.topicConsumers.has(topic.topic)).map((topic) => topic.consumer.name);
    expect(deployed.map(({ name }) => name).sort()).toEqual(Object.keys(functionConfigs).filter((name) => !notDeployed.includes(name)).sort());
    for (const { name, fn } of deployed) {
      const required = requiredVariables(functionConfigs[name as FunctionName]).filter((variable) => !lambdaRuntimeVariables.includes(variable));
      const environment = environmentOf(json, logicalId(synthesised, fn.function));
      expect(required.filter((variable) => environment[variable] === undefined), name).toEqual([]);
    }
    // What Lambda sets itself is required somewhere (the region), and the rest really are set above.
    expect(lambdaRuntimeVariables).toEqual(['AWS_REGION']);
    expect(requiredVariables(functionConfigs['get-sim'])).toEqual(['AWS_REGION', 'TABLE_NAME']);
  });

  it('refuses to synthesise a function that would lack a variable its configuration requires', () => {
    const getSim = allRoutes().find((route) => route.name === 'get-sim')!;
    expect(() => synthesise({ stage: 'dev', routes: [{ ...getSim, access: { table: 'none' } }] }, 'Unconfigured')).toThrow(
      'function get-sim: its configuration requires TABLE_NAME, which the stack does not set',
    );
    const webhook = allRoutes().find((route) => route.name === 'stripe-webhook')!;
    expect(() =>
      synthesise({ stage: 'dev', routes: [{ ...webhook, access: { ...webhook.access, sendsTo: [] } }] }, 'Unconfigured'),
    ).toThrow('function stripe-webhook: its configuration requires FULFILMENT_QUEUE_URL, which the stack does not set');
  });

  it('sends the root and every resource without an ANY method to a fallback', () => {
    const methods = apiMethods(synthesised.json);
    const paths = new Set(methods.map((method) => method.path));
    for (const path of paths) {
      expect(methods.some((method) => method.path === path && method.httpMethod === 'ANY'), path).toBe(true);
    }
    expect(paths.has('/')).toBe(true);
  });

  it('passes the cdk-nag AwsSolutions checks with no unsuppressed finding', () => {
    expectNagClean(synthesised);
  });
});
