/**
 * The REST API's resource tree planned from the route table, as plain data (no aws-cdk-lib
 * import), so the rules can be tested without a synth.
 *
 * API Gateway REST API has two habits that the plan works around:
 * - A request to an existing resource with a method that resource lacks never reaches a
 *   parent's `{proxy+}`: API Gateway answers 403 "Missing Authentication Token" itself.
 *   So every resource without an ANY method gets one, integrated with the fallback that the
 *   local gateway would choose for that path (shared/http/route-match.ts: the greedy ANY row
 *   whose fixed prefix is the longest strict prefix of the path). The fallback answers 405
 *   `method_not_allowed` for a known path and 404 `not_found` otherwise. Specific methods
 *   take precedence over ANY in API Gateway, so the routes themselves are unaffected.
 * - Resources have no trailing slash: `/x/` and `/x` are the same resource.
 */
import type { RouteDefinition } from '../../shared/topology/routes';

/** One method of a planned resource and the function (route name) it invokes. */
export interface PlannedMethod {
  httpMethod: string;
  /** Name of the route whose function serves this method. */
  functionName: string;
  /** True when the method exists only to send unknown methods to a fallback. */
  fallback: boolean;
}

/** One API Gateway resource: its path from the root and its methods. */
export interface PlannedResource {
  /** '/' for the root, else '/a/b/{c}' without a trailing slash. */
  path: string;
  /** Path parts from the root; empty for the root. */
  segments: string[];
  methods: PlannedMethod[];
}

/** The path parts of a route path: `/developer/api/sims/` → ['developer', 'api', 'sims']. */
export const pathSegments = (path: string): string[] => path.split('/').filter((segment) => segment !== '');

/** The resource path of a route path, as API Gateway names it. */
export const resourcePath = (path: string): string => `/${pathSegments(path).join('/')}`;

const isVariable = (segment: string): boolean => segment.startsWith('{') && segment.endsWith('}');
const isGreedy = (segment: string): boolean => /^\{.+\+\}$/.test(segment);

/** True for a fallback row: method ANY on a path ending in a greedy `{name+}` segment. */
export const isFallbackRoute = (route: RouteDefinition): boolean => {
  const last = pathSegments(route.path).at(-1);
  return route.method === 'ANY' && last !== undefined && isGreedy(last);
};

/**
 * The fallback that serves a resource with no method of its own for a request: the fallback
 * row whose fixed prefix is the longest prefix of the resource's path, the whole path included
 * (so `/developer/api` itself is the developer fallback's: a request to `/developer/api/` is
 * authenticated like every other path under it). The root takes the fallback with an empty
 * prefix. The local gateway chooses the same (shared/http/route-match.ts fallbackRouteFor).
 */
const fallbackFor = (segments: string[], fallbacks: RouteDefinition[]): RouteDefinition | undefined => {
  let best: { route: RouteDefinition; length: number } | undefined;
  for (const route of fallbacks) {
    const prefix = pathSegments(route.path).slice(0, -1);
    const matches = segments.length >= prefix.length && prefix.every((part, index) => part === segments[index]);
    if (matches && (!best || prefix.length > best.length)) best = { route, length: prefix.length };
  }
  return best?.route;
};

/**
 * Plans the resource tree of `routes`: every route's method on its resource, and an ANY
 * method with the right fallback on every resource that has none. Throws for a route table
 * that API Gateway would refuse (two variable names under one parent, a greedy segment that
 * is not last, the same method twice on one path).
 */
export const planApi = (routes: RouteDefinition[]): PlannedResource[] => {
  const resources = new Map<string, PlannedResource>();
  const ensure = (segments: string[]): PlannedResource => {
    const path = `/${segments.join('/')}`;
    let resource = resources.get(path);
    if (!resource) {
      resource = { path, segments, methods: [] };
      resources.set(path, resource);
    }
    return resource;
  };
  ensure([]);

  for (const route of routes) {
    const segments = pathSegments(route.path);
    segments.forEach((segment, index) => {
      if (isGreedy(segment) && index !== segments.length - 1) {
        throw new Error(`route ${route.name}: the greedy segment ${segment} must be the last one of ${route.path}`);
      }
      ensure(segments.slice(0, index + 1));
    });
    const resource = ensure(segments);
    if (resource.methods.some((method) => method.httpMethod === route.method)) {
      throw new Error(`route ${route.name}: ${route.method} ${resource.path} is already served by another route`);
    }
    resource.methods.push({ httpMethod: route.method, functionName: route.name, fallback: false });
  }

  // REST API allows one variable child ({name} or {name+}) per resource.
  const variableChildren = new Map<string, string>();
  for (const resource of resources.values()) {
    const last = resource.segments.at(-1);
    if (last === undefined || !isVariable(last)) continue;
    const parent = `/${resource.segments.slice(0, -1).join('/')}`;
    const other = variableChildren.get(parent);
    if (other !== undefined && other !== last) {
      throw new Error(`paths under ${parent} use two variable segments, ${other} and ${last}; API Gateway allows one`);
    }
    variableChildren.set(parent, last);
  }

  const fallbacks = routes.filter(isFallbackRoute);
  for (const resource of resources.values()) {
    if (resource.methods.some((method) => method.httpMethod === 'ANY')) continue;
    const fallback = fallbackFor(resource.segments, fallbacks);
    if (fallback) resource.methods.push({ httpMethod: 'ANY', functionName: fallback.name, fallback: true });
  }

  return [...resources.values()].sort((a, b) => a.segments.length - b.segments.length || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
};
