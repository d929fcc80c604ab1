import type { Construct } from 'constructs';
import { ServiceFunction, type ServiceFunctionProps } from './service-function';

/** What the stack gives every stream and topic consumer alike for its function. */
export type ConsumerDeployment = Pick<ServiceFunctionProps, 'projectRoot' | 'resources' | 'memoryMb' | 'production' | 'environment'>;

/** What a consumer's own definition says of its function. */
export type ConsumerOwnFunction = Pick<ServiceFunctionProps, 'name' | 'handler' | 'access' | 'timeoutSeconds' | 'description'>;

/** The function of a stream or topic consumer, `Consumer` in `scope`. */
export const consumerFunction = (scope: Construct, deployment: ConsumerDeployment, own: ConsumerOwnFunction): ServiceFunction =>
  new ServiceFunction(scope, 'Consumer', { ...own, ...deployment });
