/**
 * Rewrites the generated field documentation in docs/area-b.md from the checkout schemas
 * (shared/checkout/schemas.ts). Run after changing a schema:
 *
 *     npx tsx scripts/render-area-b-docs.ts
 *
 * test/area-b/docs.test.ts fails while the document is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withGeneratedFieldDocs } from './checkout-schema-docs';

const file = fileURLToPath(new URL('../docs/area-b.md', import.meta.url));
const before = readFileSync(file, 'utf8');
const after = withGeneratedFieldDocs(before);
if (after === before) {
  console.log('docs/area-b.md is up to date');
} else {
  writeFileSync(file, after);
  console.log('docs/area-b.md rewritten');
}
