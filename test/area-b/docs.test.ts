import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withGeneratedFieldDocs } from '../../scripts/checkout-schema-docs';

describe('docs/area-b.md', () => {
  it('carries the field documentation generated from the current checkout schemas', () => {
    const document = readFileSync(new URL('../../docs/area-b.md', import.meta.url), 'utf8');
    // When this fails, run: npx tsx scripts/render-area-b-docs.ts
    expect(document).toBe(withGeneratedFieldDocs(document));
    expect(document).toContain('| `cart[].quantity` | integer | yes | 1 to 10; Units of the plan. | `invalid_request` |');
  });
});
