import type { RouteDefinition } from '../topology/routes';

/** The route a request reaches, with the path parameters API Gateway would pass. */
export interface RouteMatch {
  route: RouteDefinition;
  pathParameters: Record<string, string> | null;
}

const trimSlashes = (path: string): string[] => path.split('/').filter((segment) => segment !== '');

/**
 * Matches a request path against a route path in API Gateway REST API syntax (`{name}` one
 * segment, `{proxy+}` the rest). A trailing slash is optional on both sides, as in API
 * Gateway. Returns the decoded path parameters, or undefined when the path does not match.
 */
export const matchPath = (routePath: string, requestPath: string): Record<string, string> | undefined => {
  const pattern = trimSlashes(routePath);
  const actual = trimSlashes(requestPath);
  const parameters: Record<string, string> = {};
  for (let index = 0; index < pattern.length; index += 1) {
    const part = pattern[index]!;
    const greedy = /^\{(.+)\+\}$/.exec(part);
    if (greedy) {
      if (actual.length <= index) return undefined;
      parameters[greedy[1]!] = actual.slice(index).map(decodeURIComponent).join('/');
      return parameters;
    }
    const value = actual[index];
    if (value === undefined) return undefined;
    const variable = /^\{(.+)\}$/.exec(part);
    if (variable) parameters[variable[1]!] = decodeURIComponent(value);
    else if (part !== value) return undefined;
  }
  return actual.length === pattern.length ? parameters : undefined;
};

/**
 * Finds the route for a method and path the way API Gateway does: a route with the exact
 * method wins over ANY; routes without greedy segments win over greedy ones. `routes` is
 * tried in order within each rank.
 */
export const matchRoute = (routes: RouteDefinition[], method: string, path: string): RouteMatch | undefined => {
  const isGreedy = (route: RouteDefinition) => route.path.includes('+}');
  const ranked = [
    ...routes.filter((route) => !isGreedy(route) && route.method === method),
    ...routes.filter((route) => !isGreedy(route) && route.method === 'ANY'),
    ...routes.filter((route) => isGreedy(route) && route.method === method),
    ...routes.filter((route) => isGreedy(route) && route.method === 'ANY'),
  ];
  for (const route of ranked) {
    const parameters = matchPath(route.path, path);
    if (parameters) return { route, pathParameters: Object.keys(parameters).length > 0 ? parameters : null };
  }
  return undefined;
};

/** Whether a route path matches, false for a path whose percent-encoding is malformed (no route takes it). */
const matchesPath = (routePath: string, requestPath: string): boolean => {
  try {
    return matchPath(routePath, requestPath) !== undefined;
  } catch (error) {
    if (error instanceof URIError) return false;
    throw error;
  }
};

/** Methods that the (non-fallback) routes serve for this path; empty when no route has it (or its encoding is malformed). */
export const methodsForPath = (routes: RouteDefinition[], path: string): string[] =>
  routes
    .filter((route) => route.method !== 'ANY' && !route.path.includes('+}') && matchesPath(route.path, path))
    .map((route) => route.method);

/**
 * The fallback row that serves a path no route takes, as API Gateway chooses it: the greedy
 * ANY row (`/developer/api/{proxy+}`, `/{proxy+}`) whose fixed prefix is the longest leading
 * run of the path's segments, the prefix itself included (`/developer/api/` is the
 * developer fallback's, as its resource's ANY method is: infra/constructs/api-plan.ts).
 * Also for a path whose percent-encoding is malformed (`%FF`, `%C0%AE`), which no route can take.
 */
export const fallbackRouteFor = (routes: RouteDefinition[], path: string): RouteDefinition | undefined => {
  const segments = trimSlashes(path);
  let best: { route: RouteDefinition; length: number } | undefined;
  for (const route of routes) {
    const parts = trimSlashes(route.path);
    if (route.method !== 'ANY' || !/^\{.+\+\}$/.test(parts.at(-1) ?? '')) continue;
    const prefix = parts.slice(0, -1);
    const matches = segments.length >= prefix.length && prefix.every((part, index) => part === segments[index]);
    if (matches && (!best || prefix.length > best.length)) best = { route, length: prefix.length };
  }
  return best?.route;
};

