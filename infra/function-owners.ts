import type { QueueDefinition } from '../shared/topology/queues';
import type { RouteDefinition } from '../shared/topology/routes';
import type { ServiceFunction } from './constructs/service-function';

/** A function of the stack with the name and access of what it serves (a route or a queue's consumer). */
export interface FunctionOwner {
  name: string;
  access: RouteDefinition['access'];
  fn: ServiceFunction;
}

/** The route functions, then the queue consumers, each with its route's or queue's access. */
export const routeAndConsumerOwners = (
  routes: RouteDefinition[],
  queues: QueueDefinition[],
  routeFunctions: ReadonlyMap<string, ServiceFunction>,
  consumerFunctions: ReadonlyMap<string, ServiceFunction>,
): FunctionOwner[] => [
  ...routes.map((route) => ({ name: route.name, access: route.access, fn: routeFunctions.get(route.name)! })),
  ...queues.map((queue) => ({ name: queue.consumer.name, access: queue.access, fn: consumerFunctions.get(queue.name)! })),
];
