import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, Stack } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { describe, expect, it } from 'vitest';
import { ServiceFunction, type ServiceResources } from '../../infra/constructs/service-function';
import { buildFunctionBundles } from '../../local/bundle-build';
import { repositoryRoot } from '../../local/handler-loader';
import { tempDirs } from '../support/temp-dirs';

const tempDir = tempDirs();

const fulfilOrder = { name: 'fulfil-order', handler: 'functions/fulfil-order.ts' };

describe('side modules: pdf-lib and the SNS client in files of their own beside fulfil-order (issue #11)', () => {
  it('the CDK asset holds invoice-pdf.mjs and sns-publish.mjs beside index.mjs, byte for byte the files the local bundled runtime runs', async () => {
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
    expect(readdirSync(assetDir).sort()).toEqual([
      'index.mjs', 'index.mjs.map', 'invoice-pdf.mjs', 'invoice-pdf.mjs.map', 'sns-publish.mjs', 'sns-publish.mjs.map',
    ]);

    const local = await buildFunctionBundles({ dir: tempDir('sim-service-bundles-side-'), functions: [fulfilOrder] });
    const localDir = join(local.dir, fulfilOrder.name);
    for (const file of ['index.mjs', 'invoice-pdf.mjs', 'sns-publish.mjs']) {
      expect(readFileSync(join(assetDir, file)).equals(readFileSync(join(localDir, file))), file).toBe(true);
    }
    const index = readFileSync(join(assetDir, 'index.mjs'), 'utf8');
    const side = readFileSync(join(assetDir, 'invoice-pdf.mjs'), 'utf8');
    // index.mjs imports the side file relative to itself and holds none of pdf-lib; the side file does.
    expect(index).toContain('import(new URL("./invoice-pdf.mjs",import.meta.url).href)');
    expect([index.includes('PDFDocument'), side.includes('PDFDocument')]).toEqual([false, true]);
    // Likewise the SNS client: its API version string is only in the side file.
    const sns = readFileSync(join(assetDir, 'sns-publish.mjs'), 'utf8');
    expect(index).toContain('import(new URL("./sns-publish.mjs",import.meta.url).href)');
    expect([index.includes('2010-03-31'), sns.includes('2010-03-31')]).toEqual([false, true]);
  }, 120_000);
});

describe('the SNS side file publishes from the bundle', () => {
  it('sends one Publish with the topic, subject and message to SNS and resolves with its message id', async () => {
    const requests: { body: string; target: string | undefined }[] = [];
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        requests.push({ body, target: request.url });
        response.writeHead(200, { 'content-type': 'text/xml' });
        response.end(
          '<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>msg-1</MessageId></PublishResult>' +
            '<ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata></PublishResponse>',
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_SNS: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });
    try {
      const local = await buildFunctionBundles({ dir: tempDir('sim-service-bundles-sns-'), functions: [fulfilOrder] });
      const side = await import(pathToFileURL(join(local.dir, fulfilOrder.name, 'sns-publish.mjs')).href);
      const id = await side.publishToSns({
        region: 'eu-west-2',
        topicArn: 'arn:aws:sns:eu-west-2:123456789012:operations',
        subject: 'Dispatch needed',
        body: 'Order 1 paid',
      });
      expect(id).toBe('msg-1');
      expect(requests).toHaveLength(1);
      expect(Object.fromEntries(new URLSearchParams(requests[0]!.body))).toEqual({
        Action: 'Publish',
        Version: '2010-03-31',
        TopicArn: 'arn:aws:sns:eu-west-2:123456789012:operations',
        Subject: 'Dispatch needed',
        Message: 'Order 1 paid',
      });
    } finally {
      process.env = saved;
      server.close();
    }
  }, 120_000);
});
