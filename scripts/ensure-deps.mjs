// Installs the locked dependencies (npm ci) when node_modules is missing, so that
// `npm start` and `npm test` work on a fresh clone with nothing else to run first.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(join(root, 'node_modules', '.package-lock.json'))) {
  console.error('node_modules is missing: installing the locked dependencies with npm ci ...');
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
