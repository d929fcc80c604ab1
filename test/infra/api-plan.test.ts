import { describe, expect, it } from 'vitest';
import { planApi, pathSegments, resourcePath } from '../../infra/constructs/api-plan';
import { defaultFallbackRoute, developerFallbackRoute, type RouteDefinition } from '../../shared/topology/routes';

const route = (name: string, method: RouteDefinition['method'], path: string): RouteDefinition => ({
  name,
  method,
  path,
  handler: `functions/${name}.ts`,
  area: 'developer',
  json: false,
  access: { table: 'none' },
});

const summary = (routes: RouteDefinition[]) =>
  planApi(routes).flatMap((resource) =>
    resource.methods.map((method) => `${method.httpMethod} ${resource.path} → ${method.functionName}${method.fallback ? ' (fallback)' : ''}`),
  );

describe('planApi', () => {
  it('drops trailing slashes: a resource per path segment', () => {
    expect(pathSegments('/developer/api/sims/')).toEqual(['developer', 'api', 'sims']);
    expect(resourcePath('/developer/api/sims/{sim}/sms/')).toBe('/developer/api/sims/{sim}/sms');
    expect(resourcePath('/')).toBe('/');
  });

  it('puts each route on its resource and the nearest fallback on every other method', () => {
    const plan = summary([
      route('list-sims', 'GET', '/developer/api/sims/'),
      route('send-sms', 'POST', '/developer/api/sims/{sim}/sms/'),
      route('checkout', 'POST', '/api/v1/checkout'),
      developerFallbackRoute,
      defaultFallbackRoute,
    ]);
    expect(plan).toEqual([
      'ANY / → default-fallback (fallback)',
      'ANY /api → default-fallback (fallback)',
      'ANY /developer → default-fallback (fallback)',
      'ANY /{proxy+} → default-fallback',
      'ANY /api/v1 → default-fallback (fallback)',
      'ANY /developer/api → developer-fallback (fallback)',
      'POST /api/v1/checkout → checkout',
      'ANY /api/v1/checkout → default-fallback (fallback)',
      'GET /developer/api/sims → list-sims',
      'ANY /developer/api/sims → developer-fallback (fallback)',
      'ANY /developer/api/{proxy+} → developer-fallback',
      'ANY /developer/api/sims/{sim} → developer-fallback (fallback)',
      'POST /developer/api/sims/{sim}/sms → send-sms',
      'ANY /developer/api/sims/{sim}/sms → developer-fallback (fallback)',
    ]);
  });

  it('adds no ANY where a route already answers every method', () => {
    expect(summary([route('catch-all', 'ANY', '/hooks/'), defaultFallbackRoute])).toEqual([
      'ANY / → default-fallback (fallback)',
      'ANY /hooks → catch-all',
      'ANY /{proxy+} → default-fallback',
    ]);
  });

  it('refuses two variable names under one parent, which API Gateway refuses', () => {
    expect(() => planApi([route('a', 'GET', '/sims/{sim}/'), route('b', 'POST', '/sims/{iccid}/sms')])).toThrow(
      'paths under /sims use two variable segments, {sim} and {iccid}; API Gateway allows one',
    );
    expect(() => planApi([route('a', 'GET', '/sims/{sim}'), route('b', 'ANY', '/sims/{proxy+}')])).toThrow(
      'paths under /sims use two variable segments',
    );
  });

  it('refuses a method served twice on one path and a greedy segment that is not last', () => {
    expect(() => planApi([route('a', 'GET', '/sims/'), route('b', 'GET', '/sims')])).toThrow(
      'route b: GET /sims is already served by another route',
    );
    expect(() => planApi([route('a', 'GET', '/x/{proxy+}/y')])).toThrow('route a: the greedy segment {proxy+} must be the last one');
  });
});
