import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RestApi,
  type IResource,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { NagSuppressions } from 'cdk-nag';
import type { RouteDefinition } from '../../shared/topology/routes';
import { addGatewayAnswers } from './gateway-responses';
import { planApi, type PlannedResource } from './api-plan';

/** Options of the service API. */
export interface ServiceApiProps {
  /** Stage name, also the first path part of the execute-api URL. */
  stageName: string;
  routes: RouteDefinition[];
  /** The function of each route, by route name. */
  functions: Map<string, IFunction>;
  /** Stage-wide throttling, requests per second and burst. */
  throttling: { rateLimit: number; burstLimit: number };
  /** X-Ray tracing of the stage. */
  tracing: boolean;
  /** Production: the access log group is retained when the stack goes. */
  production: boolean;
}

/** The JSON access log line of the stage: one object per request. */
const accessLogFormat = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    extendedRequestId: '$context.extendedRequestId',
    requestTime: '$context.requestTime',
    ip: '$context.identity.sourceIp',
    userAgent: '$context.identity.userAgent',
    httpMethod: '$context.httpMethod',
    resourcePath: '$context.resourcePath',
    path: '$context.path',
    protocol: '$context.protocol',
    status: '$context.status',
    responseLength: '$context.responseLength',
    responseLatency: '$context.responseLatency',
    integrationStatus: '$context.integration.status',
    integrationLatency: '$context.integration.latency',
    errorType: '$context.error.responseType',
    errorMessage: '$context.error.message',
  }),
);

/**
 * The public HTTP API of the service.
 *
 * API Gateway REST API, not HTTP API: only REST API lets the service customise API
 * Gateway's own answers (throttling, payload too large, timeouts, unknown paths) as gateway
 * responses, and the spec wants every answer under /developer/api/ to be JSON `{detail,
 * code}`; HTTP API answers those with fixed `{"message": ...}` bodies.
 *
 * Every route of the route table gets its method on its resource, integrated (Lambda proxy,
 * payload v1) with its own function; every resource also gets an ANY method to its fallback
 * so that unknown methods answer 405 from the function (see api-plan.ts).
 */
export class ServiceApi extends Construct {
  readonly api: RestApi;
  readonly plan: PlannedResource[];

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.api = new RestApi(this, 'Api', {
      description: 'SIM developer API (/developer/api/) and storefront checkout API (/api/v1/)',
      endpointTypes: [EndpointType.REGIONAL],
      // No account-wide CloudWatch role from this stack (see the APIG6 note below).
      cloudWatchRole: false,
      deployOptions: {
        stageName: props.stageName,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat,
        throttlingRateLimit: props.throttling.rateLimit,
        throttlingBurstLimit: props.throttling.burstLimit,
        tracingEnabled: props.tracing,
        metricsEnabled: true,
        loggingLevel: MethodLoggingLevel.OFF,
      },
    });
    // The stack outputs the URL itself (ApiUrl); drop RestApi's own generically named output.
    this.api.node.tryRemoveChild('Endpoint');
    addGatewayAnswers(this.api);

    this.plan = planApi(props.routes);
    const uses = new Map<string, number>();
    for (const resource of this.plan) {
      for (const method of resource.methods) uses.set(method.functionName, (uses.get(method.functionName) ?? 0) + 1);
    }
    const integrations = new Map<string, LambdaIntegration>();
    const integrationFor = (name: string): LambdaIntegration => {
      let integration = integrations.get(name);
      if (!integration) {
        const handler = props.functions.get(name);
        if (!handler) throw new Error(`no function for route ${name}`);
        // A function behind many methods (the fallbacks) gets one permission for this API
        // instead of one per method, which keeps its resource policy under Lambda's 20 KB.
        integration = new LambdaIntegration(handler, { proxy: true, scopePermissionToMethod: (uses.get(name) ?? 0) <= 1 });
        integrations.set(name, integration);
      }
      return integration;
    };

    const resources = new Map<string, IResource>([['/', this.api.root]]);
    for (const planned of this.plan) {
      let resource = resources.get(planned.path);
      if (!resource) {
        const parentPath = `/${planned.segments.slice(0, -1).join('/')}`;
        const parent = resources.get(parentPath);
        if (!parent) throw new Error(`resource ${planned.path} planned before its parent`);
        resource = parent.addResource(planned.segments.at(-1)!);
        resources.set(planned.path, resource);
      }
      for (const method of planned.methods) {
        resource.addMethod(method.httpMethod, integrationFor(method.functionName), {
          authorizationType: AuthorizationType.NONE,
        });
      }
    }

    NagSuppressions.addResourceSuppressions(
      this.api,
      [
        {
          id: 'AwsSolutions-APIG2',
          reason:
            'Requests are validated in the functions (valibot schemas, shared middleware) so that errors carry the codes of the spec; an API Gateway request validator would answer with its own messages.',
        },
        {
          id: 'AwsSolutions-APIG3',
          reason:
            'No WAF web ACL by default: stage throttling limits the request rate and Area A enforces per-user rate limits in the functions. An operator can associate a WAFv2 web ACL with the stage without changing the stack.',
        },
        {
          id: 'AwsSolutions-APIG4',
          reason:
            'Authorization is done in the functions: two-factor tokens (bearer token and customer API key) for /developer/api/, a shared service token for /api/v1/, and signatures for the Stripe and SMS provider webhooks. The fallbacks only answer 404/405.',
        },
        {
          id: 'AwsSolutions-COG4',
          reason: 'No Cognito user pool: callers authenticate with the tokens and signatures the functions check (see APIG4).',
        },
        {
          id: 'AwsSolutions-APIG6',
          reason:
            'Execution logging needs the account-wide API Gateway CloudWatch role, which this stack deliberately does not own; every request is logged by the JSON access log and every function logs its own errors.',
        },
      ],
      true,
    );
  }
}
