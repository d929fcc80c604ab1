/**
 * The route table: every HTTP route of the service as plain data. The CDK stack, the local
 * gateway and the tests all read it, so a route is declared here and nowhere else.
 *
 * Paths follow API Gateway REST API syntax. `{name}` is one path segment, `{proxy+}` the
 * rest of the path. A trailing slash is part of the documented path but optional for
 * callers (API Gateway REST API treats `/x/` and `/x` alike; so does the local gateway).
 * REST API allows one variable name per path level, so the SIM segment under
 * `/developer/api/sims/` is `{sim}` for every route: an internal SIM id for A2, an ICCID for
 * the SMS routes (the handler says which).
 *
 * This module imports nothing from aws-cdk-lib.
 */

/** HTTP methods a route can answer; ANY is a catch-all (used by the fallbacks). */
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'ANY';

/** Which interface a route belongs to. */
export type RouteArea = 'developer' | 'storefront' | 'provider';

/** Names of the queues a function may send to (see shared/queues/definitions.ts). */
export type QueueName = 'callbacks' | 'fulfilment';

/** Names of the secrets a function may read (see shared/config/secrets.ts). */
export type SecretName =
  | 'STOREFRONT_SERVICE_TOKEN'
  | 'STRIPE_SECRET_KEY'
  | 'STRIPE_WEBHOOK_SECRET'
  | 'SMS_PROVIDER_TOKEN'
  | 'SMS_RECEIPT_SECRET';

/** What a function may touch: the stack grants exactly this and nothing more. */
export interface RouteAccess {
  /** DynamoDB access to the service table. */
  table: 'none' | 'read' | 'readWrite';
  /** Queues the function sends messages to. */
  sendsTo?: QueueName[];
  /** Secrets the function reads at run time. */
  secrets?: SecretName[];
}

/** One HTTP route. */
export interface RouteDefinition {
  /** Function name, kebab-case; also the handler file's base name. */
  name: string;
  method: RouteMethod;
  path: string;
  /** Handler module relative to the repository root; it exports `handler`. */
  handler: string;
  area: RouteArea;
  /** Whether the route takes a JSON body (parsed by the shared middleware). */
  json: boolean;
  access: RouteAccess;
  /** Lambda timeout in seconds (default 10). */
  timeoutSeconds?: number;
  /** Lambda memory in MB (default 1024). */
  memoryMb?: number;
}

/** The fallback of Area A: every request under /developer/api/ that no route serves. */
export const developerFallbackRoute: RouteDefinition = {
  name: 'developer-fallback',
  method: 'ANY',
  path: '/developer/api/{proxy+}',
  handler: 'functions/developer-fallback.ts',
  area: 'developer',
  json: false,
  access: { table: 'readWrite' },
};

/** The fallback of every other path: a JSON 404 (405 for a known path with another method). */
export const defaultFallbackRoute: RouteDefinition = {
  name: 'default-fallback',
  method: 'ANY',
  path: '/{proxy+}',
  handler: 'functions/default-fallback.ts',
  area: 'storefront',
  json: false,
  access: { table: 'none' },
};

/** The routes of the service, fallbacks excluded. */
export const routes: RouteDefinition[] = [];

/** Every route including the fallbacks, most specific first. */
export const allRoutes = (): RouteDefinition[] => [...routes, developerFallbackRoute, defaultFallbackRoute];
