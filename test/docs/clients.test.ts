import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * docs/clients.md (issue #13 point 5): a consumer generates TypeScript types from
 * docs/openapi.json with openapi-typescript and makes one typed call to each area. The
 * example (docs/examples/typed-client.ts, shown in full in docs/clients.md) is compiled here
 * against types generated from the committed document, and a wrong use of them must not compile.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
// Inside the repository (so tsc finds @types/node) in a folder .gitignore ignores (.vitest-*).
const work = join(root, `.vitest-clients-${process.pid}`);
const example = readFileSync(join(root, 'docs/examples/typed-client.ts'), 'utf8');

const compile = (file: string) =>
  run(
    join(root, 'node_modules/.bin/tsc'),
    ['--noEmit', '--strict', '--target', 'ES2022', '--module', 'ESNext', '--moduleResolution', 'Bundler', '--lib', 'ES2023', '--types', 'node', '--typeRoots', join(root, 'node_modules/@types'), file],
    { cwd: work },
  ).then(
    () => '',
    (error: { stdout: string }) => error.stdout,
  );

describe('typed clients from docs/openapi.json', () => {
  beforeAll(async () => {
    mkdirSync(work, { recursive: true });
    // The very command docs/clients.md gives.
    await run(join(root, 'node_modules/.bin/openapi-typescript'), [join(root, 'docs/openapi.json'), '-o', join(work, 'sim-api.d.ts')], { cwd: root });
    writeFileSync(join(work, 'typed-client.ts'), example);
  }, 60_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('docs/clients.md shows the example file in full', () => {
    const doc = readFileSync(join(root, 'docs/clients.md'), 'utf8');
    expect(doc).toContain(`\`\`\`ts\n${example}\`\`\``);
    expect(doc).toContain('npx openapi-typescript docs/openapi.json -o sim-api.d.ts');
  });

  it('compiles the example, one typed call to each area, against the generated types', async () => {
    expect(await compile('typed-client.ts')).toBe('');
  }, 60_000);

  it('refuses a call that the document does not allow', async () => {
    writeFileSync(
      join(work, 'wrong.ts'),
      [
        "import type { components, paths } from './sim-api';",
        "type SimQuery = NonNullable<paths['/developer/api/sims/']['get']['parameters']['query']>;",
        "export const query: SimQuery = { status: 'lost' };",
        "export const checkout: components['schemas']['EsimCheckoutRequest'] = { cart: [{ catalog_sku: 'X', quantity: 1 }], customer_country: 'GB' };",
        "export const total = (sim: components['schemas']['Sim']): number => sim.cost.total_cost;",
        '',
      ].join('\n'),
    );
    const output = await compile('wrong.ts');
    expect(output).toMatch(/wrong\.ts\(3,\d+\): error TS2322: Type '"lost"' is not assignable/);
    expect(output).toMatch(/wrong\.ts\(4,\d+\): error TS2741: Property 'customer_email' is missing/);
    expect(output).toMatch(/wrong\.ts\(5,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/);
  }, 60_000);
});
