// Installs the workspace's dependencies when they are missing or older than the lock file, so
// `npm start` and `npm test` work from a fresh clone. Plain JavaScript: it runs before tsx exists.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

// The Node lines the project runs on (package.json's engines). Checked here rather than by npm's
// engine-strict, which would also refuse tools a user runs with npx in the checkout (the MCP
// Inspector asks for a newer Node than its CLI needs).
const [major, minor] = process.versions.node.split('.').map(Number);
if (!((major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major >= 24)) {
  process.stderr.write(`Switchyard needs Node 20.19+, 22.12+ or 24+; this is Node ${process.versions.node}.\n`);
  process.exit(1);
}
const lock = `${root}package-lock.json`;
const installed = `${root}node_modules/.package-lock.json`;

const stale = !existsSync(installed) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(installed).mtimeMs);
if (stale) {
  process.stderr.write('Installing dependencies (npm ci)…\n');
  const run = spawnSync('npm', [existsSync(lock) ? 'ci' : 'install', '--no-audit', '--no-fund'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (run.status !== 0) {
    process.stderr.write('npm could not install the dependencies; see the output above.\n');
    process.exit(run.status ?? 1);
  }
}
