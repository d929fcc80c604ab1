// Installs the locked dependencies (`npm ci`) with npm running on the Node the project pins
// (the `node` package in package.json's devDependencies), not on whatever Node the machine
// has: `npm exec --package=node@<pinned>` puts that Node first on the PATH, so the `npm ci`
// it runs starts on it (npm's `#!/usr/bin/env node`) and checks every package's `engines`
// against it, which is why no EBADENGINE is printed on an older system Node. Only the
// machine's npm and the npm registry are needed. Run directly by `.ci/run`, and by
// `scripts/ensure-deps.mjs` when `node_modules` is missing.
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

/** The repository root (the folder holding package.json). */
export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The exact Node version package.json pins (devDependencies.node); throws unless it is exact. */
export const pinnedNodeVersion = () => {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const version = manifest.devDependencies?.node;
  if (typeof version !== 'string' || !/^\d+\.\d+\.\d+$/.test(version)) {
    throw new Error(`package.json must pin devDependencies.node to an exact version, found ${JSON.stringify(version)}`);
  }
  return version;
};

/** Runs `npm ci --no-audit --no-fund` on the pinned Node; returns npm's exit code. */
export const installDeps = () => {
  const version = pinnedNodeVersion();
  const result = spawnSync('npm', ['exec', '--yes', `--package=node@${version}`, '--', 'npm', 'ci', '--no-audit', '--no-fund'], {
    cwd: root,
    stdio: 'inherit',
  });
  return result.status ?? 1;
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exit(installDeps());
