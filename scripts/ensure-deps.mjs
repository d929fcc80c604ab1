// Installs the locked dependencies when node_modules is missing, so that `npm start` and
// `npm test` work on a fresh clone with nothing else to run first. It runs on the machine's
// own Node (Node 20 is enough: the project's Node 24 is itself one of those dependencies)
// and installs with npm running on the pinned Node 24 (scripts/install-deps.mjs).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { installDeps, root } from './install-deps.mjs';

if (!existsSync(join(root, 'node_modules', '.package-lock.json'))) {
  console.error('node_modules is missing: installing the locked dependencies with npm ci on the pinned Node ...');
  const status = installDeps();
  if (status !== 0) process.exit(status);
}
