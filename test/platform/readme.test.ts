import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withCurrentRouteTable } from '../../scripts/readme-routes';

describe('README', () => {
  it('shows the route table exactly as shared/topology/routes.ts declares it (run npm run docs)', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toBe(withCurrentRouteTable(readme));
  });
});
