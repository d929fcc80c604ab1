import { allRoutes, type RouteDefinition } from '../../../shared/topology/routes';
import { queueDefinitions } from '../../../shared/topology/queues';
import { minimalName, dynamoName, type BundleCandidate } from './figures';

const stripeSecrets = new Set(['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET']);

/** Every function of the stack (routes first, then consumers) and the two baselines. */
export const bundleCandidates = (): BundleCandidate[] => {
  const fromRoute = (route: RouteDefinition): BundleCandidate => ({
    name: route.name,
    kind: 'route',
    handler: route.handler,
    group: route.area,
    callsStripe: (route.access.secrets ?? []).some((secret) => stripeSecrets.has(secret)),
    checkout: (route.access.secrets ?? []).includes('STRIPE_SECRET_KEY'),
    webhook: (route.access.secrets ?? []).includes('STRIPE_WEBHOOK_SECRET'),
    fulfilment: false,
  });
  const baseline = { kind: 'baseline' as const, group: 'baseline', callsStripe: false, checkout: false, webhook: false, fulfilment: false };
  const candidates: BundleCandidate[] = [
    { ...baseline, name: minimalName, handler: 'bench/baselines/minimal-handler.ts' },
    { ...baseline, name: dynamoName, handler: 'bench/baselines/dynamodb-only-handler.ts' },
    ...allRoutes().map(fromRoute),
    ...queueDefinitions.map((queue) => ({
      name: queue.consumer.name,
      kind: 'consumer' as const,
      handler: queue.consumer.handler,
      group: 'consumer',
      callsStripe: (queue.access.secrets ?? []).some((secret) => stripeSecrets.has(secret)),
      checkout: false,
      webhook: false,
      fulfilment: queue.name === 'fulfilment',
    })),
  ];
  // The functions that send SMS once more with SMS_PROVIDER=aws: the same bundle, whose init
  // then builds the AWS End User Messaging client (issue #21: send-sms at most 1.3 × in load).
  const sendsSms = (access: RouteDefinition['access']) => (access.secrets ?? []).includes('SMS_PROVIDER_TOKEN');
  const senders = [
    ...allRoutes().filter((route) => sendsSms(route.access)).map((route) => candidates.find((candidate) => candidate.name === route.name)!),
    ...queueDefinitions.filter((queue) => sendsSms(queue.access)).map((queue) => candidates.find((candidate) => candidate.name === queue.consumer.name)!),
  ];
  return [...candidates, ...senders.map((sender) => ({ ...sender, name: `${sender.name} ${awsSmsSuffix}`, env: awsSmsEnv }))];
};

/** The name suffix of a bundle loaded with SMS_PROVIDER=aws. */
export const awsSmsSuffix = '(SMS_PROVIDER=aws)';

/** What an SMS sender needs to build the AWS End User Messaging client at init. */
const awsSmsEnv = { SMS_PROVIDER: 'aws', SMS_ORIGINATION_IDENTITY: 'phone-0123456789abcdef0123456789abcdef', SMS_CONFIGURATION_SET: 'bench-sms' };
