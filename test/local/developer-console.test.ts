import { readFileSync, writeFileSync } from 'node:fs';
import { fetchFromRuntime } from '../support/request';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demoSeedFile } from '../../local/cli-options';
import { demoCredentials } from '../../local/demo-credentials';
import { checkoutExamples } from '../../local/checkout-examples';
import { localSecretKey } from '../../local/stripe-emulator';
import { pageSecurityPolicy } from '../../local/console/http';
import { simsPerPage } from '../../local/console/sections/sims';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { gsi1Partition } from '../../shared/db/keys';
import { documents, post, readOrder, serviceToken } from '../area-b/support/checkout-api';
import { useTestRuntime } from '../support/runtime';
import { eventually } from '../support/eventually';
import { rawRequest } from './http-client';
import { launchChromium } from '../support/chromium';

// The developer console (issue #12 point 4) end to end in headless Chromium (Debian's
// `chromium`, driven by playwright-core; .ci/run installs it): a checkout over the API, then
// Pay, Decline and Cancel on the page, the receipt and invoice e-mails and the PDF download,
// the SMS simulator and the webhook inbox; and, over plain HTTP, the console's headers, its
// errors and its protections. STRIPE_SECRET_KEY unset: the runtime runs the Stripe emulator.
const seed = JSON.parse(readFileSync(demoSeedFile, 'utf8')) as unknown;
const credentials = demoCredentials(seed);
/** The demo SIM of the credentials, and its owner (the customer whose subscriptions its lifecycle events go to first). */
const demoSim = (seed as { sims: Array<{ iccid: string; customer: string; status: string; data_used_mb: string }> }).sims.find((sim) => sim.iccid === credentials.iccid)!;
const iotExample = checkoutExamples.find((example) => example.path === '/api/v1/iot-physical-checkout')!;


let browser: Browser;
let page: Page;
/** What the page reported as an error (console errors, uncaught exceptions, CSP violations): must stay empty. */
const pageErrors: string[] = [];
const db = documents();

const runtime = useTestRuntime({ seed, env: { STOREFRONT_SERVICE_TOKEN: serviceToken } }, { stopAfter: () => db.destroy() });

beforeAll(async () => {
  browser = await launchChromium('The developer console test');
  page = await browser.newPage({ acceptDownloads: true });
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
});

afterAll(async () => {
  await browser?.close();
});

afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

/** An IoT contract checkout (B3: a PDF invoice after payment) over the API; `fields` override the demo body. */
const checkoutIot = async (fields: Record<string, unknown> = {}): Promise<string> => {
  const answer = await post(runtime.baseUrl, iotExample.path, { ...iotExample.body, ...fields });
  expect(answer.status, answer.text).toBe(201);
  return (answer.body as { order_id: string }).order_id;
};

const orderCard = (orderId: string) => page.locator(`article#order-${orderId}`);

/** The page's height in CSS pixels. */
const pageHeight = () => page.evaluate('document.documentElement.scrollHeight') as Promise<number>;

/** Reloads the console until `check` passes (fulfilment is asynchronous). */
const onConsole = (check: () => Promise<void>, timeoutMs = 20_000) =>
  eventually(async () => {
    await page.goto(runtime.consoleUrl);
    await check();
  }, timeoutMs, 200);

const formToken = async (): Promise<string> => {
  const html = await (await fetch(runtime.consoleUrl)).text();
  return /name="token" value="([^"]+)"/.exec(html)?.[1] ?? '';
};

/** A console action as a form POST from the console's own origin. */
const postAction = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${runtime.baseUrl}/_local${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: runtime.baseUrl, ...headers },
    body: new URLSearchParams(form),
    redirect: 'manual',
  });

/** A SIM's status and usage as the table holds them (its ICCID lookup, GSI1). */
const simState = async (iccid: string) => {
  const found = await db.send(
    new QueryCommand({
      TableName: runtime.tableName,
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK = :sk',
      ExpressionAttributeValues: { ':pk': gsi1Partition.simByIccid(iccid), ':sk': 'SIM' },
    }),
  );
  const sim = found.Items?.[0];
  return sim && { status: sim.status as string, data_used_mb: sim.data_used_mb as string };
};

const errorOf = async (response: Response) => ({
  status: response.status,
  type: response.headers.get('content-type'),
  body: (await response.json()) as unknown,
});

describe('the developer console in Chromium', () => {
  it('is shorter than 3,000 px at 1400 x 900 on first load; the SIM table pages and filters, and sections fold', async () => {
    const sims = (seed as { sims: Array<{ iccid: string; status: string; customer: string }> }).sims.map((sim) => sim.iccid).sort();
    expect(sims.length).toBeGreaterThan(simsPerPage * 2);
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(runtime.consoleUrl);
    expect(await pageHeight()).toBeLessThan(3_000);
    const shownIccids = () => page.locator('#sims table.sims tbody tr td:first-child').allTextContents();
    expect(await shownIccids()).toEqual(sims.slice(0, simsPerPage));
    expect(await page.locator('#sims .meta.pages').first().textContent()).toBe(`SIMs 1–${simsPerPage} of ${sims.length}`);

    // The next page, by its link.
    await page.locator('#sims').getByRole('link', { name: 'next' }).first().click();
    expect(await shownIccids()).toEqual(sims.slice(simsPerPage, simsPerPage * 2));
    expect(page.url()).toBe(`${runtime.consoleUrl}?sims_page=2#sims`);

    // A filter: part of an ICCID, then a status.
    await page.locator('#sims input[name="sims_q"]').fill(demoSim.iccid.slice(-4));
    await page.locator('#sims').getByRole('button', { name: 'Filter' }).click();
    expect(await shownIccids()).toEqual(sims.filter((iccid) => iccid.includes(demoSim.iccid.slice(-4))));
    await page.locator('#sims input[name="sims_q"]').fill('');
    await page.locator('#sims select[name="sims_status"]').selectOption('stock');
    await page.locator('#sims').getByRole('button', { name: 'Filter' }).click();
    const stock = (seed as { sims: Array<{ iccid: string; status: string }> }).sims.filter((sim) => sim.status === 'stock').map((sim) => sim.iccid).sort();
    expect(await shownIccids()).toEqual(stock.slice(0, simsPerPage));

    // Every section folds (details/summary: no script), and opens again.
    await page.goto(runtime.consoleUrl);
    const sections = await page.locator('main > section').evaluateAll((all) => all.map((section) => section.id));
    expect(sections).toEqual(['activity', 'orders', 'outbox', 'operations', 'sms', 'aws-sms', 'webhooks', 'sims', 'feed', 'stream-failures', 'inbox']);
    // A section with nothing to show yet starts folded (the AWS SMS emulator's, under SMS_PROVIDER=http).
    expect(await page.locator('#aws-sms > details').getAttribute('open')).toBeNull();
    const before = await pageHeight();
    await page.locator('#sims > details > summary').click();
    expect(await page.locator('#sims > details').getAttribute('open')).toBeNull();
    expect(await page.locator('#sims table.sims').isVisible()).toBe(false);
    expect(await pageHeight()).toBeLessThan(before);
    await page.locator('#sims > details > summary').click();
    expect(await page.locator('#sims table.sims').isVisible()).toBe(true);
    await page.setViewportSize({ width: 1280, height: 720 });
  });

  it('pays a B3 checkout on the page: the receipt and the invoice appear, and the PDF downloads', async () => {
    const orderId = await checkoutIot({ customer_email: 'console-pay@fleet.example.com' });
    await page.goto(runtime.consoleUrl);
    expect(await page.title()).toBe('SIM service: local developer console');
    await expect.poll(() => orderCard(orderId).locator('.status').first().textContent()).toBe('pending');
    expect(await orderCard(orderId).locator('button').allTextContents()).toEqual(['Pay', 'Decline', 'Cancel']);

    await Promise.all([page.waitForURL(`${runtime.consoleUrl}#order-${orderId}`), orderCard(orderId).getByRole('button', { name: 'Pay' }).click()]);
    expect(await page.locator('#activity li').first().textContent()).toMatch(
      new RegExp(`Paid order ${orderId} \\(pi_\\w+\\): succeeded \\(HTTP 200\\); the order is fulfilled\\.$`),
    );

    await onConsole(async () => {
      expect(await orderCard(orderId).locator('h3 .status').textContent()).toBe('fulfilled');
      const effects = await orderCard(orderId).locator('table.effects tbody tr').evaluateAll((rows) =>
        rows.map((row) => [row.querySelector('td code')?.textContent, row.querySelector('td .status')?.textContent]),
      );
      expect(effects).toEqual(expect.arrayContaining([['account', 'done'], ['receipt_email', 'done'], ['invoice_email', 'done']]));
      expect(await orderCard(orderId).locator('button').count()).toBe(0);
    });
    const emails = page.locator('#outbox article.email');
    const receipt = emails.filter({ has: page.getByRole('heading', { name: `Your receipt for order ${orderId}` }) });
    const invoice = emails.filter({ has: page.getByRole('heading', { name: new RegExp(`^Invoice .* for order ${orderId}$`) }) });
    expect(await receipt.count()).toBe(1);
    expect(await invoice.count()).toBe(1);
    expect(await receipt.locator('dd').first().textContent()).toBe('Storefront <orders@storefront.invalid>');
    expect(await receipt.locator('pre.email-text').textContent()).toContain(orderId);
    // The order's e-mail effects link to their e-mails on the page.
    const receiptId = await receipt.getAttribute('id');
    expect(await orderCard(orderId).getByRole('row').filter({ hasText: 'receipt_email' }).getByRole('link', { name: 'see the e-mail' }).getAttribute('href')).toBe(`#${receiptId}`);

    const link = invoice.getByRole('link', { name: `invoice-${orderId}.pdf` });
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe(`invoice-${orderId}.pdf`);
    const pdf = readFileSync(await download.path());
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect((await readOrder(db, runtime.tableName, orderId))?.status).toBe('fulfilled');
  });

  it('declines, then cancels an order on the page, and shows the buyer\'s markup as text', async () => {
    const hostile = '<img src=x onerror="document.title=1">';
    const orderId = await checkoutIot({
      customer_email: 'console-decline@fleet.example.com',
      customer_first_name: hostile,
      company_name: '<script>document.title=2</script>',
    });
    await page.goto(runtime.consoleUrl);
    await Promise.all([page.waitForURL(`${runtime.consoleUrl}#order-${orderId}`), orderCard(orderId).getByRole('button', { name: 'Decline' }).click()]);
    expect(await orderCard(orderId).locator('h3 .status').textContent()).toBe('payment_failed');
    // The decline code from the payment intent's last_payment_error, not only payment_failed.
    expect(await orderCard(orderId).locator('dt:text-is("Failure") + dd').textContent()).toBe(
      'payment_failed: card_declined (generic_decline), Your card was declined.',
    );
    expect(await page.locator('#activity li').first().textContent()).toMatch(
      new RegExp(`Declined order ${orderId} \\(pi_\\w+\\): card_declined \\(HTTP 402\\); the order is payment_failed\\.$`),
    );
    // A declined payment may still be paid or cancelled.
    expect(await orderCard(orderId).locator('button').allTextContents()).toEqual(['Pay', 'Decline', 'Cancel']);
    expect(await orderCard(orderId).textContent()).toContain(`${hostile} Fleet`);
    expect(await orderCard(orderId).textContent()).toContain('<script>document.title=2</script>');
    expect(await page.locator('img[src="x"], main script').count()).toBe(0);

    await Promise.all([page.waitForURL(`${runtime.consoleUrl}#order-${orderId}`), orderCard(orderId).getByRole('button', { name: 'Cancel' }).click()]);
    expect(await orderCard(orderId).locator('h3 .status').textContent()).toBe('cancelled');
    expect(await orderCard(orderId).locator('button').count()).toBe(0);
    expect(await page.title()).toBe('SIM service: local developer console');
    expect((await readOrder(db, runtime.tableName, orderId))?.status).toBe('cancelled');
  });

  it('shows an SMS handed to the simulator with its receipt, and the signed delivery in the webhook inbox', async () => {
    const message = `Console check <b>${Date.now()}</b>`;
    const sent = await fetchFromRuntime(`${runtime.baseUrl}/developer/api/sims/${credentials.iccid}/sms/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${credentials.bearerToken}`, 'X-Customer-API-Key': credentials.apiKey!, 'Content-Type': 'application/json' },
      body: JSON.stringify({ message, callback_url: runtime.inbox.url }),
    });
    expect(sent.status).toBe(202);
    const { message_id: messageId } = (await sent.json()) as { message_id: string };
    await onConsole(async () => {
      const row = page.locator('#sms tbody tr').filter({ hasText: messageId });
      expect(await row.locator('pre').textContent()).toBe(message);
      expect(await row.locator('.status').allTextContents()).toEqual(['delivered', 'posted']);
      const delivery = page.locator('#inbox article.delivery').filter({ hasText: messageId });
      expect(await delivery.locator('dd .status').textContent()).toBe('verified');
      expect(JSON.parse((await delivery.locator('pre').first().textContent()) ?? '')).toMatchObject({ message_id: messageId, status: 'delivered' });
    });
  });
  it('subscribes the webhook inbox and suspends a SIM on the page: the signed line.suspended arrives in the inbox and in the subscription\'s deliveries', async () => {
    const customer = page.locator(`#webhooks article#webhooks-${demoSim.customer}`);
    const simRow = page.locator(`#sims tr#sim-${demoSim.iccid}`);
    await page.goto(runtime.consoleUrl);
    expect(await customer.locator('.subscription').count()).toBe(0);
    expect(await simRow.locator('td').evaluateAll((cells) => cells.slice(0, 4).map((cell) => cell.textContent))).toEqual([
      demoSim.iccid, expect.stringMatching(new RegExp(` ${demoSim.customer}$`)), demoSim.status, demoSim.data_used_mb,
    ]);
    expect(await simRow.locator('select[name="status"] option').allTextContents()).toEqual(['active', 'inactive', 'suspended', 'cancelled', 'stock', 'dispatched', 'trial']);

    await Promise.all([
      page.waitForURL(`${runtime.consoleUrl}#webhooks-${demoSim.customer}`),
      customer.getByRole('button', { name: 'Subscribe the webhook inbox' }).click(),
    ]);
    const subscription = customer.locator('.subscription');
    expect(await subscription.count()).toBe(1);
    const subscriptionId = (await subscription.getAttribute('id'))!.replace(/^webhook-/, '');
    expect(subscriptionId).toMatch(/^wh_[0-9a-f]{24}$/);
    expect(await subscription.locator('h4 .status').textContent()).toBe('active');
    expect(await subscription.locator('dd').allTextContents()).toEqual(expect.arrayContaining([
      `${runtime.inbox.url}lifecycle`, 'line.activated, line.suspended, line.resumed, line.cancelled, usage.updated, identity.rotated, identity.verified, action.completed, action.failed, sms.received',
    ]));
    expect(await customer.getByRole('button', { name: 'Subscribe the webhook inbox' }).count()).toBe(0);
    expect(await page.locator('#activity li').first().textContent()).toContain(`Subscribed the webhook inbox for customer ${demoSim.customer}: ${subscriptionId} `);
    expect(await page.locator('main').textContent()).not.toMatch(/whsec_/);

    await simRow.locator('select[name="status"]').selectOption('suspended');
    await Promise.all([page.waitForURL(`${runtime.consoleUrl}#sim-${demoSim.iccid}`), simRow.getByRole('button', { name: 'Change' }).click()]);
    expect(await simRow.locator('.status').textContent()).toBe('suspended');
    expect(await page.locator('#activity li').first().textContent()).toMatch(
      new RegExp(`Changed SIM ${demoSim.iccid}: status suspended, data_used_mb ${demoSim.data_used_mb.replace('.', '\\.')}; the table's stream makes its lifecycle events\\.$`),
    );
    expect(await simState(demoSim.iccid)).toEqual({ status: 'suspended', data_used_mb: demoSim.data_used_mb });

    await onConsole(async () => {
      const delivery = page.locator('#inbox article.delivery').filter({ hasText: '"line.suspended"' }).filter({ hasText: demoSim.iccid });
      expect(await delivery.count()).toBe(1);
      expect(await delivery.locator('dd .status').textContent()).toBe('verified');
      expect(await delivery.locator('dd').nth(1).textContent()).toBe(`verified with the signing secret of subscription ${subscriptionId} of customer ${demoSim.customer}`);
      const event = JSON.parse((await delivery.locator('pre').first().textContent()) ?? '') as { id: string; type: string; data: Record<string, unknown> };
      expect(event).toMatchObject({ type: 'line.suspended', data: { iccid: demoSim.iccid, status: 'suspended' } });
      const attempts = await subscription.locator('table.deliveries tbody tr').evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].slice(1).map((cell) => cell.textContent)));
      expect(attempts.filter(([type]) => type === 'line.suspended')).toEqual([['line.suspended', event.id, '1', 'delivered HTTP 200', '—']]);
    });

    // Back as it was, for the tests that follow (a line.activated to the inbox).
    const restored = await fetch(`${runtime.baseUrl}/_local/sims/${demoSim.iccid}`, { method: 'POST', body: JSON.stringify({ status: demoSim.status }) });
    expect(restored.status).toBe(200);
  });

  it('shows an e-mail dropped in the outbox as text, and its HTML body only in a script-less sandbox', async () => {
    const name = '20990101T000000000Z-hostile-000000.eml';
    writeFileSync(
      join(runtime.env.EMAIL_OUTBOX_DIR!, name),
      [
        'From: "<b>Mallory</b>" <m@evil.example>',
        'To: victim@example.com',
        'Subject: <img src=x onerror="document.title=3">',
        'Content-Type: multipart/alternative; boundary=b',
        '',
        '--b',
        'Content-Type: text/plain; charset=utf-8',
        '',
        '</pre><script>document.title=4</script>',
        '--b',
        'Content-Type: text/html; charset=utf-8',
        '',
        '<html><head><title>hostile</title></head><body><script>document.title="ran"</script><p>HTML body</p></body></html>',
        '--b--',
        '',
      ].join('\r\n'),
    );
    await page.goto(runtime.consoleUrl);
    const email = page.locator('#outbox article.email').filter({ hasText: 'victim@example.com' });
    expect(await email.locator('h3').textContent()).toBe('<img src=x onerror="document.title=3">');
    expect(await email.locator('dd').first().textContent()).toBe('"<b>Mallory</b>" <m@evil.example>');
    expect(await email.locator('pre.email-text').textContent()).toBe('</pre><script>document.title=4</script>');
    expect(await email.locator('details pre').textContent()).toContain('<script>document.title="ran"</script>');
    expect(await page.locator('img[src="x"], main script, main b').count()).toBe(0);
    expect(await page.title()).toBe('SIM service: local developer console');

    // The HTML view: served with `Content-Security-Policy: sandbox`, so its script does not run.
    const href = await email.getByRole('link', { name: 'view it in a sandbox' }).getAttribute('href');
    const viewer = await browser.newPage();
    const blocked: string[] = [];
    viewer.on('console', (message) => blocked.push(message.text()));
    const shown = await viewer.goto(`${runtime.baseUrl}${href}`);
    expect(shown?.headers()['content-security-policy']).toBe("sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'");
    expect(await viewer.locator('p').textContent()).toBe('HTML body');
    expect(await viewer.title()).toBe('hostile');
    expect(blocked.join('\n')).toContain("because the document's frame is sandboxed and the 'allow-scripts' permission is not set");
    await viewer.close();
  });
});

describe('the developer console over HTTP', () => {
  it('answers its page with a strict Content-Security-Policy and no framing', async () => {
    const response = await fetch(runtime.consoleUrl);
    expect(response.status).toBe(200);
    expect(Object.fromEntries(['content-type', 'content-security-policy', 'x-content-type-options', 'x-frame-options', 'referrer-policy', 'cache-control'].map((name) => [name, response.headers.get(name)]))).toEqual({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'same-origin',
      'cache-control': 'no-store',
    });
    expect(pageSecurityPolicy).toBe(response.headers.get('content-security-policy'));
    const bare = await fetch(`${runtime.baseUrl}/_local`);
    expect([bare.status, bare.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
  });

  it('never answers under /developer/api/ or /api/v1/: those stay JSON', async () => {
    for (const path of ['/developer/api/_local/', '/developer/api/_local', '/api/v1/_local/', '/api/v1/_local', '/developer/api/', '/api/v1/']) {
      const response = await fetch(`${runtime.baseUrl}${path}`, { headers: { Accept: 'text/html' } });
      const body = (await response.json()) as { code?: unknown; detail?: unknown };
      expect({ path, status: response.status, type: response.headers.get('content-type') }).toMatchObject({ path, type: 'application/json' });
      expect(typeof body.code, path).toBe('string');
      expect(typeof body.detail, path).toBe('string');
    }
  });

  it('leaves /_local/stripe to the Stripe emulator (the longest mount wins)', async () => {
    const response = await fetch(`${runtime.baseUrl}/_local/stripe/v1/payment_intents/pi_missing`, { headers: { Authorization: `Bearer ${localSecretKey}` } });
    expect(await errorOf(response)).toMatchObject({
      status: 404,
      type: 'application/json',
      body: { error: { type: 'invalid_request_error', code: 'resource_missing', param: 'intent' } },
    });
  });

  it('refuses a POST from another origin, without the form token, or to another host', async () => {
    const orderId = await checkoutIot({ customer_email: 'console-csrf@fleet.example.com' });
    const token = await formToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(await errorOf(await postAction(`/orders/${orderId}/pay`, { token }, { Origin: 'https://evil.example' }))).toEqual({
      status: 403, type: 'application/json', body: { detail: "Console actions are accepted from the console's own pages only.", code: 'cross_site_request' },
    });
    expect(await errorOf(await postAction(`/orders/${orderId}/pay`, { token }, { 'Sec-Fetch-Site': 'cross-site' }))).toMatchObject({
      status: 403, body: { code: 'cross_site_request' },
    });
    for (const form of [{}, { token: `${token}x` }, { token: 'x' }] as Array<Record<string, string>>) {
      expect(await errorOf(await postAction(`/orders/${orderId}/pay`, form))).toEqual({
        status: 403, type: 'application/json', body: { detail: "The form token is missing or not this console's: reload the console and try again.", code: 'invalid_form_token' },
      });
    }
    const rebound = await rawRequest(`${runtime.baseUrl}/_local/`, { headers: ['Host', 'attacker.example:80'] });
    expect({ status: rebound.status, body: rebound.json() }).toEqual({
      status: 403, body: { detail: 'The developer console answers only on 127.0.0.1, localhost or [::1].', code: 'host_not_allowed' },
    });
    expect((await readOrder(db, runtime.tableName, orderId))?.status).toBe('pending');
  });

  it('answers bad input to its actions with a JSON error, never a 5xx', async () => {
    const token = await formToken();
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect(await errorOf(await postAction(`/orders/${unknown}/pay`, { token }))).toEqual({
      status: 404, type: 'application/json', body: { detail: `There is no order "${unknown}".`, code: 'order_not_found' },
    });
    expect(await errorOf(await postAction('/orders/not-an-id/cancel', { token }))).toMatchObject({ status: 404, body: { code: 'order_not_found' } });
    expect(await errorOf(await postAction(`/orders/${unknown}/refund`, { token }))).toMatchObject({ status: 404, body: { code: 'not_found' } });

    const paid = await checkoutIot({ customer_email: 'console-twice@fleet.example.com' });
    const first = await postAction(`/orders/${paid}/pay`, { token }, { Accept: 'application/json' });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ order_id: paid, action: 'pay', stripe_status: 200, outcome: 'succeeded', order_status: 'fulfilled' });
    expect(await errorOf(await postAction(`/orders/${paid}/cancel`, { token }))).toMatchObject({
      status: 409, type: 'application/json', body: { code: 'order_not_payable' },
    });

    const wrongType = await fetch(`${runtime.baseUrl}/_local/orders/${paid}/pay`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', Origin: runtime.baseUrl }, body: JSON.stringify({ token }),
    });
    expect(await errorOf(wrongType)).toMatchObject({ status: 415, body: { code: 'unsupported_media_type' } });
    expect(await errorOf(await postAction(`/orders/${paid}/pay`, { token, padding: 'x'.repeat(20_000) }))).toMatchObject({
      status: 413, body: { code: 'payload_too_large' },
    });
    const get = await fetch(`${runtime.baseUrl}/_local/orders/${paid}/pay`);
    expect([get.status, get.headers.get('allow'), ((await get.json()) as { code: string }).code]).toEqual([405, 'POST', 'method_not_allowed']);
    const deletePage = await fetch(runtime.consoleUrl, { method: 'DELETE' });
    expect([deletePage.status, deletePage.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    expect(await errorOf(await fetch(`${runtime.baseUrl}/_local/no-such-page`, { headers: { Accept: 'text/html' } }))).toEqual({
      status: 404, type: 'application/json', body: { detail: 'Not found.', code: 'not_found' },
    });
    // A browser navigating gets the same error as a page with a way back.
    const navigated = await rawRequest(`${runtime.baseUrl}/_local/no-such-page`, { headers: ['Accept', 'text/html', 'Sec-Fetch-Dest', 'document'] });
    expect([navigated.status, navigated.headers['content-type'], navigated.headers['content-security-policy']]).toEqual([404, 'text/html; charset=utf-8', pageSecurityPolicy]);
    expect(navigated.body.toString('utf8')).toContain('<h1>404 <code>not_found</code></h1><p class="error-detail">Not found.</p><p><a href="/_local/">Back to the developer console</a></p>');
  });

  it('serves only outbox files by their plain names, attachments as downloads', async () => {
    for (const name of ['..%2F..%2Fetc%2Fpasswd', '.hidden.eml', 'x.txt', '%E0%A4%A']) {
      const answer = await errorOf(await fetch(`${runtime.baseUrl}/_local/outbox/${name}`));
      expect(answer.status, name).toBe(404);
      expect((answer.body as { code: string }).code, name).toMatch(/^(outbox_file_not_found|not_found)$/);
    }
    const page = await (await fetch(runtime.consoleUrl)).text();
    const pdfLink = /href="(\/_local\/outbox\/[^"]+\/parts\/(\d+))" download="invoice-[^"]+\.pdf"/.exec(page);
    expect(pdfLink).not.toBeNull();
    const pdf = await fetch(`${runtime.baseUrl}${pdfLink![1]}`);
    expect([pdf.status, pdf.headers.get('content-type'), pdf.headers.get('content-disposition')?.startsWith('attachment; filename="invoice-')]).toEqual([
      200, 'application/pdf', true,
    ]);
    expect(pdf.headers.get('content-security-policy')).toMatch(/^sandbox; default-src 'none'/);
    const missingPart = pdfLink![1]!.replace(/\/parts\/\d+$/, '/parts/99');
    expect(await errorOf(await fetch(`${runtime.baseUrl}${missingPart}`))).toMatchObject({ status: 404, body: { code: 'outbox_part_not_found' } });
  });

  it('changes a SIM through its form action only with the form token, and answers bad values with the JSON errors of /_local/sims', async () => {
    const token = await formToken();
    const change = (iccid: string, form: Record<string, string>, headers: Record<string, string> = {}) => postAction(`/sim-changes/${iccid}`, form, headers);
    expect(await errorOf(await change(demoSim.iccid, { status: 'cancelled' }))).toEqual({
      status: 403, type: 'application/json', body: { detail: "The form token is missing or not this console's: reload the console and try again.", code: 'invalid_form_token' },
    });
    expect(await errorOf(await change(demoSim.iccid, { token, status: 'cancelled' }, { Origin: 'https://evil.example' }))).toEqual({
      status: 403, type: 'application/json', body: { detail: "Console actions are accepted from the console's own pages only.", code: 'cross_site_request' },
    });
    expect(await errorOf(await change(demoSim.iccid, { token, status: 'lost' }))).toEqual({
      status: 400, type: 'application/json', body: { detail: 'status must be one of active, inactive, suspended, cancelled, stock, dispatched, trial.', code: 'invalid_request' },
    });
    expect(await errorOf(await change(demoSim.iccid, { token, status: 'cancelled', data_used_mb: '12.345' }))).toEqual({
      status: 400, type: 'application/json', body: { detail: 'data_used_mb must be a decimal string such as "12.50" (at most 12 integer digits and two decimal places).', code: 'invalid_request' },
    });
    expect(await errorOf(await change(demoSim.iccid, { token, data_used_mb: 'lots' }))).toEqual({
      status: 400, type: 'application/json', body: { detail: 'data_used_mb must be a decimal string such as "12.50" (at most 12 integer digits and two decimal places).', code: 'invalid_request' },
    });
    expect(await errorOf(await change(demoSim.iccid, { token, status: '', data_used_mb: ' ' }))).toEqual({
      status: 400, type: 'application/json', body: { detail: 'give status, data_used_mb or both.', code: 'invalid_request' },
    });
    expect(await errorOf(await change('8944500000000009999', { token, status: 'active' }))).toEqual({
      status: 404, type: 'application/json', body: { detail: 'no SIM with ICCID 8944500000000009999.', code: 'not_found' },
    });
    // The ICCID and the amount by the seed's rules (shared/vocabulary/fields.ts), before anything is read.
    for (const iccid of [encodeURIComponent('SIM#1001'), 'constructor', 'a'.repeat(3_000), '123456789012345678901']) {
      expect(await errorOf(await change(iccid, { token, status: 'active' }))).toEqual({
        status: 400, type: 'application/json', body: { detail: 'iccid must be 1 to 20 digits.', code: 'invalid_request' },
      });
    }
    expect(await errorOf(await change(demoSim.iccid, { token, data_used_mb: '1234567890123' }))).toEqual({
      status: 400, type: 'application/json', body: { detail: 'data_used_mb must be a decimal string such as "12.50" (at most 12 integer digits and two decimal places).', code: 'invalid_request' },
    });
    const get = await fetch(`${runtime.baseUrl}/_local/sim-changes/${demoSim.iccid}`);
    expect([get.status, get.headers.get('allow'), await get.json()]).toEqual([405, 'POST', { detail: 'GET is not allowed here: use POST.', code: 'method_not_allowed' }]);
    expect(await simState(demoSim.iccid)).toEqual({ status: demoSim.status, data_used_mb: demoSim.data_used_mb });

    // A script asking for JSON gets the SIM as /_local/sims answers it; a browser is sent back to the SIM's row.
    const changed = await change(demoSim.iccid, { token, data_used_mb: '99.5' }, { Accept: 'application/json' });
    expect([changed.status, changed.headers.get('content-type')]).toEqual([200, 'application/json']);
    expect(await changed.json()).toMatchObject({ iccid: demoSim.iccid, status: demoSim.status, usage: { data_used_mb: '99.50', data_overage_mb: '0.00' } });
    const back = await change(demoSim.iccid, { token, status: demoSim.status, data_used_mb: demoSim.data_used_mb });
    expect([back.status, back.headers.get('location')]).toEqual([303, `/_local/#sim-${demoSim.iccid}`]);
    expect(await simState(demoSim.iccid)).toEqual({ status: demoSim.status, data_used_mb: demoSim.data_used_mb });
  });

  it('subscribes the webhook inbox for a known customer once, never showing the secret', async () => {
    const token = await formToken();
    const subscribe = (customer: string, form: Record<string, string>) => postAction(`/webhooks/${customer}/subscribe-inbox`, form, { Accept: 'application/json' });
    expect(await errorOf(await subscribe('globex', {}))).toEqual({
      status: 403, type: 'application/json', body: { detail: "The form token is missing or not this console's: reload the console and try again.", code: 'invalid_form_token' },
    });
    expect(await errorOf(await subscribe('no-such-customer', { token }))).toEqual({
      status: 404, type: 'application/json', body: { detail: 'There is no customer "no-such-customer".', code: 'customer_not_found' },
    });
    // A name that is no id by the one rule (shared/vocabulary/fields.ts) is refused before anything is read.
    for (const customer of [encodeURIComponent('globex#1'), '__proto__', 'a'.repeat(3_000), encodeURIComponent('glo bex')]) {
      expect(await errorOf(await subscribe(customer, { token }))).toEqual({
        status: 400, type: 'application/json', body: { detail: 'customer must be 1 to 64 characters of letters, digits, ".", "_" and "-", starting with a letter or a digit.', code: 'invalid_request' },
      });
    }
    for (const customer of ['constructor', 'toString']) {
      expect(await errorOf(await subscribe(customer, { token }))).toEqual({
        status: 400, type: 'application/json', body: { detail: 'customer must not be a name every JavaScript object carries (constructor, prototype, toString, valueOf, hasOwnProperty ...).', code: 'invalid_request' },
      });
    }
    const first = await subscribe('globex', { token });
    const created = (await first.json()) as { id: string; created_at: string };
    expect([first.status, created]).toEqual([201, {
      id: expect.stringMatching(/^wh_[0-9a-f]{24}$/), url: `${runtime.inbox.url}lifecycle`,
      events: ['line.activated', 'line.suspended', 'line.resumed', 'line.cancelled', 'usage.updated', 'identity.rotated', 'identity.verified', 'action.completed', 'action.failed', 'sms.received'],
      description: 'The local webhook inbox (subscribed from the developer console)', status: 'active', created_at: created.created_at,
    }]);
    const again = await subscribe('globex', { token });
    expect([again.status, await again.json()]).toEqual([200, created]);
    const page = await (await fetch(runtime.consoleUrl)).text();
    expect(page).toContain(`The webhook inbox is subscribed (<a href="#webhook-${created.id}">${created.id}</a>)`);
    expect(page).not.toContain('whsec_');
  });
});
