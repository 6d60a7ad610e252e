/**
 * Debian's `chromium` for the dashboard's browser tests, found or installed the way the Redis
 * tests get `redis-server`: with apt-get, as root, on Debian or Ubuntu (package lists updated
 * first when the install fails on stale ones); anywhere else the test stops with one line saying
 * how. Playwright's own browser downloads are never used: the machine reaches package registries only.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { planRedisInstall, readHostFacts } from '@switchyard/redis';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/lib/chromium/chromium'];

/** The chromium binary, or undefined when none is installed. */
export function findChromium(): string | undefined {
  for (const candidate of CANDIDATES) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function apt(args: string[], quiet: boolean): boolean {
  const run = spawnSync('apt-get', args, {
    stdio: ['ignore', 'ignore', quiet ? 'ignore' : 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return run.status === 0;
}

/** The chromium binary, installed first with apt-get when missing and the host allows. */
export function ensureChromium(log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): string {
  const found = findChromium();
  if (found) return found;
  const plan = planRedisInstall(readHostFacts(process.env.PATH ?? ''));
  if (plan.kind === 'manual') throw new Error('chromium is not installed: install Debian\'s `chromium` package (sudo apt-get install -y chromium) to run the browser tests');
  log('chromium is not installed; installing it with apt-get (once per machine)');
  const install = ['install', '-y', '--no-install-recommends', 'chromium'];
  const installed = apt(install, true) || (apt(['update'], false) && apt(install, false));
  const after = findChromium();
  if (!installed || !after) throw new Error('chromium could not be installed with apt-get: install it by hand (apt-get install -y chromium)');
  return after;
}
