import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoSeedFile } from '../../local/cli-options';
import { demoCredentials } from '../../local/demo-credentials';
import { buildReferenceSite } from '../../scripts/docs';
import { openApiPath } from '../../scripts/openapi/render';
import { routes } from '../../shared/topology/routes';
import { eventTypes } from '../../shared/webhooks/event-types';
import { useTestRuntime } from '../support/runtime';
import { launchChromium } from '../support/chromium';

/**
 * The reference page (issue #13 point 4) in headless Chromium from Debian (/usr/bin/chromium,
 * driven by playwright-core, which downloads no browser): served by the local runtime at
 * /_local/docs and built as a static site by `npm run docs`, it lists every operation and webhook, shows
 * an example request, logs no console error and sends no request off the machine.
 */

const document = JSON.parse(readFileSync(openApiPath, 'utf8'));
const demoSeed: unknown = JSON.parse(readFileSync(demoSeedFile, 'utf8'));
const summaries: string[] = [
  ...Object.values(document.paths as Record<string, Record<string, { summary: string }>>).flatMap((item) => Object.values(item).map((operation) => operation.summary)),
  ...Object.values(document.webhooks as Record<string, { post: { summary: string } }>).map((webhook) => webhook.post.summary),
];

/** What a page did: console errors, uncaught errors, and requests that tried to leave 127.0.0.1 (blocked). */
interface PageRecord {
  errors: string[];
  outside: string[];
}

const openPage = async (browser: Browser, url: string): Promise<{ page: Page; record: PageRecord }> => {
  const page = await browser.newPage();
  const record: PageRecord = { errors: [], outside: [] };
  await page.route('**/*', (route) => {
    const target = new URL(route.request().url());
    if (target.protocol === 'data:' || target.protocol === 'blob:' || target.hostname === '127.0.0.1') return route.continue();
    record.outside.push(target.href);
    return route.abort();
  });
  page.on('console', (message) => {
    if (message.type() === 'error') record.errors.push(message.text());
  });
  page.on('pageerror', (error) => record.errors.push(error.message));
  await page.goto(url);
  await page.getByText('Request Example for').first().waitFor({ timeout: 20_000 });
  return { page, record };
};

/**
 * Checks one rendering of the page: every operation listed, example requests shown, nothing
 * wrong, no button that does not apply (Scalar's MCP generator); with `credentials`, the
 * authentication filled in with them (the page npm start serves with the demo data).
 */
const expectReference = async ({ page, record }: { page: Page; record: PageRecord }, credentials?: { bearerToken: string; apiKey: string }) => {
  const text = await page.locator('body').innerText();
  expect(text).not.toContain('Generate MCP');
  if (credentials) {
    expect(text).not.toContain('No authentication selected');
    expect(text).toContain(`--header 'Authorization: Bearer ${credentials.bearerToken}'`);
    expect(text).toContain(`--header 'X-Customer-API-Key: ${credentials.apiKey}'`);
  } else {
    expect(text).toContain('No authentication selected');
  }
  for (const summary of summaries) expect(text, summary).toContain(summary);
  // One per route of the route table, the delivery receipt and the five lifecycle events.
  expect(summaries).toHaveLength(routes.length + 1 + eventTypes.length);
  // The first operation's example request, as a curl command with both Area A credentials.
  expect(text).toMatch(/curl '?http:\/\/127\.0\.0\.1:\d+\/developer\/api\/sims\/[^\n]*\n\s*--header 'Authorization: Bearer [^']+' \\\n\s*--header 'X-Customer-API-Key: [^']+'/);
  // Another operation's, with its example body, once it is opened from the sidebar.
  await page.getByRole('link', { name: 'eSIM checkout' }).first().click();
  await page.getByText('"catalog_sku": "TRAVEL-EU-5GB"').first().waitFor({ timeout: 10_000 });
  expect(await page.locator('body').innerText()).toMatch(/curl '?http:\/\/127\.0\.0\.1:\d+\/api\/v1\/checkout'?[^\n]*\n(?:.*\n)*?\s*--data '\{/);
  expect(record.errors).toEqual([]);
  expect(record.outside).toEqual([]);
};

describe('the API reference page in headless Chromium', () => {
  let browser: Browser;
  const runtime = useTestRuntime({ seed: demoSeed, prefillReferenceCredentials: true });
  let staticSite: Server;
  let siteDir: string;

  beforeAll(async () => {
    browser = await launchChromium('The reference page test');
    // The static site as npm run docs builds it, served as plain files.
    siteDir = mkdtempSync(join(tmpdir(), 'reference-site-'));
    buildReferenceSite(siteDir, readFileSync(openApiPath, 'utf8'));
    const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.json': 'application/json' };
    staticSite = createServer((request, response) => {
      const file = join(siteDir, request.url === '/' ? 'index.html' : (request.url ?? '').slice(1));
      if (!existsSync(file)) return void response.writeHead(404).end();
      response.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
    });
    await new Promise<void>((resolve) => staticSite.listen(0, '127.0.0.1', resolve));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (staticSite ? staticSite.close(resolve) : resolve(undefined)));
    if (siteDir) rmSync(siteDir, { recursive: true, force: true });
  });

  it('serves the committed document at /_local/openapi.json with this runtime as its first server', async () => {
    const response = await fetch(`${runtime.baseUrl}/_local/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const served = (await response.json()) as typeof document;
    expect(served.servers[0]).toEqual({ url: runtime.baseUrl, description: 'This local runtime.' });
    expect({ ...served, servers: served.servers.slice(1) }).toEqual({ ...document, servers: document.servers.slice(1) });
  });

  it('lists every operation and shows example requests at /_local/docs, with the demo credentials filled in, no console error and nothing sent off the machine', async () => {
    const opened = await openPage(browser, `${runtime.baseUrl}/_local/docs`);
    await expectReference(opened, demoCredentials(demoSeed) as { bearerToken: string; apiKey: string });
    await opened.page.close();
  }, 60_000);

  it('does the same as the static site npm run docs builds', async () => {
    const { port } = staticSite.address() as { port: number };
    const opened = await openPage(browser, `http://127.0.0.1:${port}/`);
    await expectReference(opened);
    await opened.page.close();
  }, 60_000);

  it('answers JSON 404 for anything else under /_local/docs', async () => {
    const response = await fetch(`${runtime.baseUrl}/_local/docs/nothing.js`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: 'Not found.', code: 'not_found' });
  });
});
