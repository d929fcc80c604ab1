import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { ServiceFunction, type ServiceResources } from '../../infra/constructs/service-function';
import { buildFunctionBundles } from '../../local/bundle-build';
import { repositoryRoot } from '../../local/handler-loader';

const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const fulfilOrder = { name: 'fulfil-order', handler: 'functions/fulfil-order.ts' };

describe('side modules: pdf-lib in a file of its own beside fulfil-order (issue #11)', () => {
  it('the CDK asset holds invoice-pdf.mjs beside index.mjs, byte for byte the files the local bundled runtime runs', async () => {
    // The asset exactly as `cdk deploy` uploads it: NodejsFunction's own bundling, then the afterBundling hook.
    const outdir = tempDir('sim-service-cdk-side-');
    const app = new App({ outdir });
    const stack = new Stack(app, 'Probe');
    // fulfil-order's configuration requires TABLE_NAME, which the stack sets from the table it may use.
    const table = new Table(stack, 'Table', { partitionKey: { name: 'PK', type: AttributeType.STRING } });
    new ServiceFunction(stack, 'Probe', {
      ...fulfilOrder,
      projectRoot: repositoryRoot,
      access: { table: 'readWrite' },
      timeoutSeconds: 3,
      memoryMb: 128,
      description: 'fulfil-order asset',
      resources: { table, tableLogicalId: 'Table', queues: new Map() } as unknown as ServiceResources,
      production: false,
    });
    app.synth();
    const [asset] = readdirSync(outdir).filter((name) => name.startsWith('asset.'));
    const assetDir = join(outdir, asset!);
    expect(readdirSync(assetDir).sort()).toEqual(['index.mjs', 'index.mjs.map', 'invoice-pdf.mjs', 'invoice-pdf.mjs.map']);

    const local = await buildFunctionBundles({ dir: tempDir('sim-service-bundles-side-'), functions: [fulfilOrder] });
    const localDir = join(local.dir, fulfilOrder.name);
    for (const file of ['index.mjs', 'invoice-pdf.mjs']) {
      expect(readFileSync(join(assetDir, file)).equals(readFileSync(join(localDir, file))), file).toBe(true);
    }
    const index = readFileSync(join(assetDir, 'index.mjs'), 'utf8');
    const side = readFileSync(join(assetDir, 'invoice-pdf.mjs'), 'utf8');
    // index.mjs imports the side file relative to itself and holds none of pdf-lib; the side file does.
    expect(index).toContain('import(new URL("./invoice-pdf.mjs",import.meta.url).href)');
    expect([index.includes('PDFDocument'), side.includes('PDFDocument')]).toEqual([false, true]);
  }, 120_000);
});
