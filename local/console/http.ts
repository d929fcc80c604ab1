/**
 * The developer console's answers and its protections: security headers on every answer (a
 * strict Content-Security-Policy: no script at all, styles and images from the console only,
 * forms posting to itself only, no framing), JSON `{detail, code}` errors, the host check
 * against DNS rebinding, and the cross-site check of every POST (same origin, and the
 * instance's form token).
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../../shared/errors/api-error';
import { html, type Html } from './html';

/** The console page's policy: nothing runs, nothing loads from elsewhere, forms post to the console, nobody frames it. */
export const pageSecurityPolicy =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** For a message part or file served as is: an opaque origin with nothing allowed (inline styles and data: images for an HTML e-mail). */
export const sandboxPolicy = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'";

const commonHeaders = {
  'X-Content-Type-Options': 'nosniff',
  // Not no-referrer: under it Chromium sends `Origin: null` with a form POST, and the same-origin
  // check could not tell the console's own forms from a sandboxed page's.
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** Writes an answer with the console's security headers (and `headers`, which win). */
export const send = (response: ServerResponse, status: number, body: string | Buffer, headers: Record<string, string>): void => {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  response.writeHead(status, { 'Content-Security-Policy': pageSecurityPolicy, ...commonHeaders, ...headers, 'Content-Length': String(bytes.length) });
  response.end(bytes);
};

/** An HTML page. */
export const sendHtml = (response: ServerResponse, status: number, page: Html): void =>
  send(response, status, page.markup, { 'Content-Type': 'text/html; charset=utf-8' });

/** A JSON document. */
export const sendJson = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void =>
  send(response, status, JSON.stringify(body), { 'Content-Type': 'application/json', ...headers });

/** A browser navigating (following a link, submitting a console form): it shows a page, not JSON. */
const browserNavigation = (request: IncomingMessage): boolean =>
  request.headers['sec-fetch-dest'] === 'document' && (request.headers.accept ?? '').toLowerCase().includes('text/html');

/**
 * An ApiError as the service renders every error: `{detail, code}` in JSON; to a browser
 * navigating (a console form, a link: `Sec-Fetch-Dest: document` and an Accept with text/html),
 * the same status, detail and code as a small page with a way back. Any other client, whatever
 * its Accept header, gets JSON.
 */
export const sendError = (request: IncomingMessage, response: ServerResponse, error: ApiError): void => {
  if (!browserNavigation(request)) {
    sendJson(response, error.status, { detail: error.detail, code: error.code, ...error.extra }, error.headers);
    return;
  }
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${error.status} ${error.code}</title>
<link rel="stylesheet" href="/_local/console.css"><link rel="icon" href="/_local/favicon.svg" type="image/svg+xml"></head>
<body><h1>${error.status} <code>${error.code}</code></h1><p class="error-detail">${error.detail}</p><p><a href="/_local/">Back to the developer console</a></p></body></html>
`;
  send(response, error.status, page.markup, { 'Content-Type': 'text/html; charset=utf-8', ...error.headers });
};

/** `303 See Other` to a path of the console (post, redirect, get). */
export const redirect = (response: ServerResponse, location: string): void =>
  send(response, 303, '', { Location: location, 'Content-Type': 'text/plain; charset=utf-8' });

/** A file name safe in a Content-Disposition header (its UTF-8 form given as filename*). */
const dispositionName = (name: string): string => {
  const ascii = name.replace(/[^A-Za-z0-9._ -]/g, '_').slice(0, 200) || 'download';
  return `filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name.slice(0, 200))}`;
};

/**
 * Bytes to download, never shown on the console's origin: `Content-Disposition: attachment`
 * and the sandbox policy, whatever the content type claims (an attachment's type comes from
 * the message and is not trusted).
 */
export const sendDownload = (response: ServerResponse, bytes: Buffer, contentType: string, filename: string): void =>
  send(response, 200, bytes, {
    'Content-Type': contentType,
    'Content-Disposition': `attachment; ${dispositionName(filename)}`,
    'Content-Security-Policy': sandboxPolicy,
  });

/** A text or HTML body shown in the browser in an opaque, script-less sandbox. */
export const sendSandboxed = (response: ServerResponse, bytes: Buffer, contentType: string): void =>
  send(response, 200, bytes, { 'Content-Type': contentType, 'Content-Security-Policy': sandboxPolicy });

/** Host names the console answers to: loopback only, so a rebound DNS name cannot read it. */
const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The request's Host header as `host:port`, when it names a loopback address; else undefined. */
const loopbackHost = (request: IncomingMessage): string | undefined => {
  const host = (request.headers.host ?? '').toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(host);
  return match && loopbackHosts.has(match[1]!) ? host : undefined;
};

/** Refuses a request whose Host is not a loopback name (DNS rebinding): 403 `host_not_allowed`. */
export const checkHost = (request: IncomingMessage): void => {
  if (loopbackHost(request) === undefined) {
    throw new ApiError(403, 'host_not_allowed', 'The developer console answers only on 127.0.0.1, localhost or [::1].');
  }
};

/** Largest form body a console action accepts. */
export const maxFormBytes = 16 * 1024;

/** Reads a form body (application/x-www-form-urlencoded, at most maxFormBytes). */
export const readForm = async (request: IncomingMessage): Promise<URLSearchParams> => {
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= maxFormBytes) chunks.push(chunk);
  }
  if (size > maxFormBytes) throw new ApiError(413, 'payload_too_large', `A console form is at most ${maxFormBytes} bytes.`);
  if (type !== 'application/x-www-form-urlencoded') {
    throw new ApiError(415, 'unsupported_media_type', 'Console actions take an HTML form: Content-Type application/x-www-form-urlencoded.');
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
};

const sameText = (a: string, b: string): boolean => {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
};

/**
 * The cross-site check of a POST, before anything is read: a browser's `Sec-Fetch-Site`, when
 * sent, must be `same-origin`, and its `Origin`, when sent, must be the console's own
 * (`http://` + the Host); then the form's `token` must be this console instance's (a random
 * value printed only into its own pages, so another site cannot know it). 403
 * `cross_site_request` or `invalid_form_token` otherwise.
 */
export const checkSameOrigin = (request: IncomingMessage): void => {
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin;
  const host = loopbackHost(request);
  if ((site !== undefined && site !== 'same-origin') || (origin !== undefined && origin !== `http://${host}`)) {
    throw new ApiError(403, 'cross_site_request', 'Console actions are accepted from the console\'s own pages only.');
  }
};

/** The form's `token` must be this instance's: 403 `invalid_form_token` otherwise. */
export const checkFormToken = (form: URLSearchParams, token: string): void => {
  const given = form.get('token');
  if (given === null || !sameText(given, token)) {
    throw new ApiError(403, 'invalid_form_token', 'The form token is missing or not this console\'s: reload the console and try again.');
  }
};

/** True when the client asked for JSON rather than a page (a script rather than a browser form). */
export const wantsJson = (request: IncomingMessage): boolean => {
  const accept = (request.headers.accept ?? '').toLowerCase();
  return accept.includes('application/json') && !accept.includes('text/html');
};
