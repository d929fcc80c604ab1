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

/** Methods that the (non-fallback) routes serve for this path; empty when no route has it. */
export const methodsForPath = (routes: RouteDefinition[], path: string): string[] =>
  routes
    .filter((route) => route.method !== 'ANY' && !route.path.includes('+}') && matchPath(route.path, path))
    .map((route) => route.method);
