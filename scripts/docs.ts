/**
 * `npm run docs`: regenerates what is generated from the code and says what changed.
 *
 * 1. README.md's route table (./readme-routes.ts).
 * 2. docs/openapi.json, the OpenAPI 3.1 document (./openapi/). Committed: the HTTP tests check
 *    every answer against it and test/docs/openapi.test.ts fails when it is stale.
 * 3. The static reference site in build/reference/ (index.html, openapi.json and Scalar's
 *    standalone script): open build/reference/index.html from disk or serve the folder; it
 *    loads nothing from elsewhere. Not committed (build/ is ignored): it is a build output.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { referencePageHtml, scalarBundlePath, scriptName } from '../local/reference-page';
import { openApiPath, renderOpenApiJson } from './openapi/render';
import { withCurrentRouteTable } from './readme-routes';

/** Writes `content` to `path` unless it already holds it; returns whether it changed. */
const update = (path: string, content: string): boolean => {
  let current: string | undefined;
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === content) return false;
  writeFileSync(path, content);
  return true;
};

/** The folder of the static reference site. */
export const referenceSiteDir = fileURLToPath(new URL('../build/reference/', import.meta.url));

/** Writes the static reference site for `openApiJson` into `dir`. */
export const buildReferenceSite = (dir: string, openApiJson: string): void => {
  mkdirSync(dir, { recursive: true });
  // Relative URLs, so the folder works from any path (and from file:// when the browser allows fetches there).
  writeFileSync(`${dir}/index.html`, referencePageHtml('./openapi.json', `./${scriptName}`));
  writeFileSync(`${dir}/openapi.json`, openApiJson);
  copyFileSync(scalarBundlePath(), `${dir}/${scriptName}`);
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const readmePath = fileURLToPath(new URL('../README.md', import.meta.url));
  const readme = update(readmePath, withCurrentRouteTable(readFileSync(readmePath, 'utf8')));
  console.log(readme ? 'README.md route table updated' : 'README.md route table already current: nothing changed');
  const openApiJson = renderOpenApiJson();
  const document = update(openApiPath, openApiJson);
  console.log(document ? 'docs/openapi.json updated' : 'docs/openapi.json already current: nothing changed');
  buildReferenceSite(referenceSiteDir, openApiJson);
  console.log('build/reference/ written (static reference page: open build/reference/index.html)');
}
