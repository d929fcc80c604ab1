/**
 * The API reference page (issue #13): Scalar's standalone browser bundle
 * (`@scalar/api-reference`, served from node_modules, no CDN) rendering docs/openapi.json.
 * The local runtime serves it at `{base}/_local/docs` beside `{base}/_local/openapi.json`;
 * `npm run docs` also writes it as a static site (scripts/docs.ts). Configured to work
 * offline and to send nothing anywhere: no web fonts, no telemetry, no proxy, no AI agent, no
 * MCP generator; served by `npm start` with the demo data, its authentication is filled in.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LocalMount } from './gateway';

/** The committed OpenAPI document. */
export const openApiDocumentPath = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));

/** Scalar's standalone bundle (one self-contained script) in node_modules. */
export const scalarBundlePath = (): string =>
  join(dirname(createRequire(import.meta.url).resolve('@scalar/api-reference')), 'browser', 'standalone.js');

/** Credentials the page fills in for its example and test requests (npm start with the demo values only). */
export interface ReferenceCredentials {
  /** Area A, factor 1: `bearer_...`. */
  bearerToken?: string;
  /** Area A, factor 2: `devkey_...`. */
  apiKey?: string;
  /** Area B: the storefront service token. */
  storefrontToken?: string;
}

/**
 * Scalar's `authentication` for the document's security schemes (scripts/openapi/): both Area A
 * factors selected together, and the storefront token ready for Area B's operations.
 */
const authenticationOf = (credentials: ReferenceCredentials) => ({
  preferredSecurityScheme: [['developerBearer', 'customerApiKey']],
  securitySchemes: {
    ...(credentials.bearerToken ? { developerBearer: { token: credentials.bearerToken } } : {}),
    ...(credentials.apiKey ? { customerApiKey: { value: credentials.apiKey } } : {}),
    ...(credentials.storefrontToken ? { storefrontServiceToken: { token: credentials.storefrontToken } } : {}),
  },
});

/**
 * The page's Scalar configuration: everything that would reach outside the machine is off, and
 * so is what does not apply to this project (Scalar's hosted MCP generator). With
 * `credentials` (the local runtime's demo values) the authentication is filled in, so the
 * examples and test requests work as they are.
 */
export const scalarConfiguration = (specUrl: string, credentials?: ReferenceCredentials) => ({
  url: specUrl,
  withDefaultFonts: false,
  telemetry: false,
  proxyUrl: '',
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  hideClientButton: false,
  documentDownloadType: 'json',
  defaultOpenAllTags: true,
  ...(credentials ? { authentication: authenticationOf(credentials) } : {}),
});

const escapeScript = (json: string): string => json.replace(/</g, '\\u003c');

/** The HTML of the page; `specUrl` and `scriptUrl` are relative to it. */
export const referencePageHtml = (specUrl: string, scriptUrl: string, credentials?: ReferenceCredentials): string => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>SIM developer API and storefront checkout API: reference</title>
    <link rel="icon" href="data:," />
  </head>
  <body>
    <div id="app"></div>
    <script src="${scriptUrl}"></script>
    <script>
      Scalar.createApiReference('#app', ${escapeScript(JSON.stringify(scalarConfiguration(specUrl, credentials)))});
    </script>
  </body>
</html>
`;

/** The script's file name beside the page. */
export const scriptName = 'scalar-standalone.js';

const send = (response: Parameters<LocalMount>[1], status: number, type: string, body: string | Buffer): void => {
  response.statusCode = status;
  response.setHeader('Content-Type', type);
  response.setHeader('Content-Length', Buffer.byteLength(body));
  response.setHeader('Cache-Control', 'no-cache');
  response.end(body);
};

const notFound = (response: Parameters<LocalMount>[1]) =>
  send(response, 404, 'application/json', JSON.stringify({ detail: 'Not found.', code: 'not_found' }));

/**
 * The document as this runtime serves it: the first server (the local runtime's default
 * address) becomes the origin the page was loaded from, so the page's examples and its test
 * requests reach this very runtime, whatever its port. Everything else is the committed file.
 */
export const withLocalServer = (json: string, host: string | undefined): Record<string, unknown> => {
  const document = JSON.parse(json) as { servers: { url: string; description?: string }[] };
  if (!host) return document;
  const [, ...others] = document.servers;
  return { ...document, servers: [{ url: `http://${host}`, description: 'This local runtime.' }, ...others] };
};

/**
 * The local runtime's mounts: `/_local/docs` (the page; `/_local/docs/` and
 * `/_local/docs/index.html` too, and the script beside it) and `/_local/openapi.json` (the
 * committed document with this runtime as its first server, read at each request so a
 * regenerated one is served at once). `credentials` gives what the page fills in (npm start:
 * the demo values, which the banner prints whole too), if anything.
 */
export const referenceMounts = (credentials: () => ReferenceCredentials | undefined = () => undefined): Record<string, LocalMount> => ({
  '/_local/docs': async (request, response, path) => {
    request.resume();
    if (path === '/' || path === '/index.html') {
      send(response, 200, 'text/html; charset=utf-8', referencePageHtml('/_local/openapi.json', `/_local/docs/${scriptName}`, credentials()));
    } else if (path === `/${scriptName}`) {
      send(response, 200, 'text/javascript; charset=utf-8', await readFile(scalarBundlePath()));
    } else {
      notFound(response);
    }
  },
  '/_local/openapi.json': async (request, response, path) => {
    request.resume();
    if (path !== '/') return notFound(response);
    send(response, 200, 'application/json', JSON.stringify(withLocalServer(readFileSync(openApiDocumentPath, 'utf8'), request.headers.host)));
  },
});
