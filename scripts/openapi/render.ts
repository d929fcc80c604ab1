import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from './document';

/** Where the committed document lives. */
export const openApiPath = fileURLToPath(new URL('../../docs/openapi.json', import.meta.url));

const packageVersion = (): string =>
  (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** docs/openapi.json as `npm run docs` writes it: the document, two-space indented, with a final newline. */
export const renderOpenApiJson = (): string => `${JSON.stringify(buildOpenApiDocument(packageVersion()), null, 2)}\n`;
