import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RouteDefinition } from '../shared/topology/routes';
import { isFallbackRoute, resourcePath } from './constructs/api-plan';
import { OperationsDashboard } from './constructs/operations-dashboard';
import type { ServiceStack } from './service-stack';

/**
 * The alarms (to the operations alarms topic) and the dashboard over every function, the
 * API, the table, the queues and the service's own metrics (docs/operations.md); returns the
 * dashboard, made in the stack as `OperationsDashboard`.
 */
export const watchService = (stack: ServiceStack, routes: RouteDefinition[], observability: Record<string, string>): OperationsDashboard => {
  const { alarms } = stack;
  for (const [name, fn] of stack.routeFunctions) alarms.watchFunction(name, fn.function);
  for (const [queue, fn] of stack.consumerFunctions) alarms.watchFunction(stack.workQueues.get(queue)!.definition.consumer.name, fn.function);
  for (const [name, stream] of stack.streamConsumers) alarms.watchFunction(name, stream.consumer.function);
  for (const topic of stack.topicConsumers.values()) alarms.watchFunction(topic.definition.consumer.name, topic.consumer.function);
  for (const [name, fn] of stack.scheduledFunctions) alarms.watchFunction(name, fn.function);
  alarms.watchApiErrors(stack.api.api, stack.stage);
  for (const route of routes.filter((candidate) => candidate.area === 'developer' && !isFallbackRoute(candidate))) {
    alarms.watchRouteLatency(stack.api.api, stack.stage, route.name, route.method, resourcePath(route.path));
  }
  alarms.watchTable(stack.serviceTable.table);
  const metrics = { namespace: observability.POWERTOOLS_METRICS_NAMESPACE!, service: observability.POWERTOOLS_SERVICE_NAME! };
  alarms.watchBusinessMetrics(metrics);
  return new OperationsDashboard(stack, 'OperationsDashboard', {
    dashboardName: `${stack.stackName}-operations`,
    api: stack.api.api,
    stage: stack.stage,
    routes,
    functions: new Map([
      ...[...stack.routeFunctions].map(([name, fn]): [string, IFunction] => [name, fn.function]),
      ...[...stack.workQueues].map(([queue, work]): [string, IFunction] => [work.definition.consumer.name, stack.consumerFunctions.get(queue)!.function]),
      ...[...stack.streamConsumers].map(([name, stream]): [string, IFunction] => [name, stream.consumer.function]),
      ...[...stack.topicConsumers.values()].map((topic): [string, IFunction] => [topic.definition.consumer.name, topic.consumer.function]),
      ...[...stack.scheduledFunctions].map(([name, fn]): [string, IFunction] => [name, fn.function]),
    ]),
    queues: [...stack.workQueues.values()],
    table: stack.serviceTable.table,
    metrics,
  });
};
