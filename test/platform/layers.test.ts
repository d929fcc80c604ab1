import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { esbuildMultiBuildOptions } from '../../infra/bundling';
import { stackFunctions } from '../../local/bundle-build';
import { repositoryRoot } from '../../local/handler-loader';
import { keyLiteralsIn, keyPrefixesOf } from '../support/key-literals';

/**
 * The layers of the house (README, Layout): the runtime (functions/, shared/) reads nothing
 * from the CDK app (infra/), the local tooling (local/), the admin CLI (admin/), the docs
 * tooling (scripts/), the benchmark or the tests; within shared/, no folder imports itself
 * through others, and the domain imports neither the HTTP layer nor the routes. Read twice:
 * from the sources, where type-only imports count too, and from esbuild's metafile of the
 * deployed bundles, which names every module a function actually carries.
 *
 * Keys come from one module (STYLE.md, "Single-table keys"): no source file but
 * shared/db/keys.ts holds a key prefix in a literal (a string, a template's text, a regular
 * expression), nor gives a literal to a key attribute (PK, SK, GSI1PK, GSI1SK). The prefixes
 * are every `WORD#` of keys.ts's own literals, so a prefix added there is held to the rule at
 * once. Comments may name key formats; so may test/, where a test states the keys it expects
 * literally so that a changed builder shows.
 */

/** Every .ts file under `folder`, relative to the repository root with forward slashes. */
const sourceFiles = (folder: string): string[] =>
  readdirSync(join(repositoryRoot, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(repositoryRoot, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort();

/** Every source file (.ts, .mjs, .js) under `folder`, as sourceFiles. */
const codeFiles = (folder: string): string[] =>
  readdirSync(join(repositoryRoot, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|mjs|js)$/.test(entry.name))
    .map((entry) => relative(repositoryRoot, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort();

/** The folders of the house's own code, all but test/. */
const codeFolders = ['admin', 'bench', 'functions', 'infra', 'local', 'scripts', 'shared'];

/** `from '…'`, `import '…'` and `import('…')`: every module specifier a file names. */
const specifierPattern = /\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(?\s*['"]([^'"]+)['"]/g;

/** The first-party modules `file` imports, as repository paths (`shared/errors/api-error.ts`). */
const localImports = (file: string): string[] =>
  [...readFileSync(join(repositoryRoot, file), 'utf8').matchAll(specifierPattern)]
    .map((match) => (match[1] ?? match[2])!)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => {
      const target = posix.join(posix.dirname(file), specifier);
      return target.endsWith('.ts') || target.endsWith('.json') ? target : `${target}.ts`;
    });

/** Every import edge out of `folders` as `from → to`. */
const importEdges = (...folders: string[]): Array<[string, string]> =>
  folders.flatMap((folder) => sourceFiles(folder).flatMap((file) => localImports(file).map((to): [string, string] => [file, to])));

const runtimeFolders = ['functions/', 'shared/'];

/** The folder under shared/ that a repository path is in (`shared/http/developer/state.ts` → `shared/http`). */
const sharedFolderOf = (path: string): string => path.split('/').slice(0, 2).join('/');

/** The folder graph of shared/: folder → the other folders of shared/ its files import. */
const folderGraph = (): Map<string, Set<string>> => {
  const graph = new Map<string, Set<string>>();
  for (const [from, to] of importEdges('shared')) {
    if (!to.startsWith('shared/')) continue;
    const [source, target] = [sharedFolderOf(from), sharedFolderOf(to)];
    if (!graph.has(source)) graph.set(source, new Set());
    if (source !== target) graph.get(source)!.add(target);
  }
  return graph;
};

/**
 * The folder cycles: each set of two or more folders that reach one another through imports
 * (the strongly connected components of the folder graph, Tarjan's algorithm), sorted.
 */
const folderCycles = (graph: Map<string, Set<string>>): string[][] => {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (folder: string): void => {
    index.set(folder, index.size);
    low.set(folder, index.get(folder)!);
    stack.push(folder);
    for (const next of graph.get(folder) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(folder, Math.min(low.get(folder)!, low.get(next)!));
      } else if (stack.includes(next)) {
        low.set(folder, Math.min(low.get(folder)!, index.get(next)!));
      }
    }
    if (low.get(folder) !== index.get(folder)) return;
    const component: string[] = [];
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      component.push(member);
      if (member === folder) break;
    }
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const folder of [...graph.keys()].sort()) if (!index.has(folder)) visit(folder);
  return cycles;
};

/**
 * The folders of shared/ that are not domain: the HTTP layer (http/: middleware, responses,
 * request parsing), the routes and consumers (routes/), and what every layer may use (errors/,
 * config/, observability/, adapters/, db/, validation/). Every other folder holds domain code,
 * or neutral code the domain uses (topology/, vocabulary/, text/, time/, async/, queues/: none
 * of them imports HTTP either, so they are held to the same rule).
 */
const notDomain = ['http', 'routes', 'errors', 'config', 'observability', 'adapters', 'db', 'validation'].map((name) => `shared/${name}`);

describe('layers', () => {
  it('no runtime module (functions/, shared/) imports anything outside the runtime, infra/ least of all', () => {
    const edges = importEdges('functions', 'shared');
    // The graph is really read: the fallback's import of the route table is one of its edges.
    expect(edges).toContainEqual(['shared/http/fallback.ts', 'shared/topology/routes.ts']);
    expect(edges.filter(([, to]) => !runtimeFolders.some((folder) => to.startsWith(folder)))).toEqual([]);
  });

  it('an adapter (shared/adapters/) imports other adapters, configuration and the logger only, never the domain', () => {
    const edges = importEdges('shared/adapters');
    expect(edges).toContainEqual(['shared/adapters/sms-provider/provider.ts', 'shared/adapters/https/outbound-post.ts']);
    expect(edges).toContainEqual(['shared/adapters/https/trusted-ca.ts', 'shared/observability/logger.ts']);
    expect(
      edges.filter(([, to]) => !['shared/adapters/', 'shared/config/', 'shared/observability/'].some((folder) => to.startsWith(folder))),
    ).toEqual([]);
  });

  it('no folder of shared/ imports itself through others: no folder-level cycle', () => {
    const graph = folderGraph();
    // The graph is really read: the routes import the HTTP layer and the domain, the HTTP layer the errors.
    expect([...graph.get('shared/routes')!]).toEqual(expect.arrayContaining(['shared/http', 'shared/sims', 'shared/webhooks']));
    expect([...graph.get('shared/http')!]).toContain('shared/errors');
    expect(folderCycles(graph)).toEqual([]);
    // The check finds a cycle when there is one (through a third folder, too).
    const looped = new Map([...graph, ['shared/errors', new Set(['shared/sims'])]]);
    expect(folderCycles(looped).length).toBeGreaterThan(0);
  });

  it('a domain folder imports neither the HTTP layer (shared/http/) nor the routes (shared/routes/)', () => {
    const domainEdges = importEdges('shared').filter(([from]) => !notDomain.includes(sharedFolderOf(from)));
    expect(domainEdges).toContainEqual(['shared/sims/get-sim.ts', 'shared/errors/api-error.ts']);
    expect(domainEdges.filter(([, to]) => ['shared/http', 'shared/routes'].includes(sharedFolderOf(to)))).toEqual([]);
  });

  it('the logger and metrics (shared/observability/) import nothing of the service but each other', () => {
    const edges = importEdges('shared/observability');
    expect(edges).toContainEqual(['shared/observability/metrics.ts', 'shared/observability/logger.ts']);
    expect(edges.filter(([, to]) => !to.startsWith('shared/observability/'))).toEqual([]);
  });

  it('admin/ (the admin CLI on any table) reads neither infra/ nor the benchmark nor the tests', () => {
    const edges = importEdges('admin');
    expect(edges).toContainEqual(['admin/cli.ts', 'admin/command.ts']);
    expect(edges.filter(([, to]) => ['infra/', 'bench/', 'test/'].some((folder) => to.startsWith(folder)))).toEqual([]);
  });

  it('local/ reaches into infra/ only for the stack bundling settings', () => {
    expect(importEdges('local').filter(([, to]) => to.startsWith('infra/'))).toEqual([['local/bundle-build.ts', 'infra/bundling.ts']]);
  });

  it('no source file but shared/db/keys.ts builds or recognises a key with a literal', () => {
    const prefixes = keyPrefixesOf(readFileSync(join(repositoryRoot, 'shared/db/keys.ts'), 'utf8'));
    // The prefixes are really read from keys.ts: the table's, GSI1's and the sort keys'.
    expect(prefixes).toEqual(expect.arrayContaining(['SIM#', 'SIMLI#', 'CUSTOMER_NAME#', 'TOKEN#', 'J#']));
    // The check finds a literal when there is one, and not in a comment.
    const planted = '// `SIM#<id>`\nconst pk = `SIM#${id}`;\nconst at = { GSI1SK: \'SIM\' };\nconst list = /^(SIMLI|SIMLT)#/;';
    expect(keyLiteralsIn('planted.ts', planted, prefixes).map(({ line, text }) => `${line} ${text}`)).toEqual(['2 SIM#', '3 SIM', '4 /^(SIMLI|SIMLT)#/']);
    const files = codeFolders.flatMap(codeFiles).filter((file) => file !== 'shared/db/keys.ts');
    expect(files).toContain('bench/lib/call-recorder.ts');
    const found = files.flatMap((file) => keyLiteralsIn(file, readFileSync(join(repositoryRoot, file), 'utf8'), prefixes));
    expect(found.map(({ file, line, text }) => `${file}:${line} ${text}`)).toEqual([]);
  });

  it('every deployed bundle reads functions/, shared/ and packages only', { timeout: 120_000 }, async () => {
    const functions = stackFunctions();
    const result = await build({
      ...esbuildMultiBuildOptions(
        functions.map(({ name, handler }) => ({ name, entry: join(repositoryRoot, handler) })),
        join(tmpdir(), 'sim-service-layers-unwritten'),
      ),
      absWorkingDir: repositoryRoot,
      metafile: true,
      write: false,
    });
    const outputs = Object.keys(result.metafile.outputs).filter((output) => output.endsWith('/index.mjs'));
    expect(outputs.map((output) => posix.basename(dirname(output))).sort()).toEqual(functions.map(({ name }) => name).sort());
    // Every module esbuild read for the bundles (tree-shaken away or not), by the import that brought it in.
    const read = Object.entries(result.metafile.inputs).flatMap(([importer, { imports }]) =>
      imports.filter((imported) => !imported.external).map((imported) => `${importer} -> ${imported.path}`),
    );
    expect(read).toContainEqual('shared/http/fallback.ts -> shared/topology/routes.ts');
    expect(read.filter((edge) => ![...runtimeFolders, 'node_modules/'].some((folder) => edge.split(' -> ')[1]!.startsWith(folder)))).toEqual([]);
  });
});
