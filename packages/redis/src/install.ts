/**
 * Finding, and when missing installing, the `redis-server` binary. A fresh machine has none;
 * on Debian or Ubuntu as root we install it with apt-get, anywhere else we stop with one line
 * that says how.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import path from 'node:path';

const EXTRA_DIRS = ['/usr/bin', '/usr/sbin', '/usr/local/bin', '/opt/homebrew/bin'];

/** Absolute path of `redis-server` on PATH (or a usual place), or undefined. */
export function findRedisServer(searchPath: string): string | undefined {
  const dirs = [...searchPath.split(path.delimiter).filter(Boolean), ...EXTRA_DIRS];
  for (const dir of dirs) {
    const candidate = path.join(dir, 'redis-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

export interface HostFacts {
  platform: NodeJS.Platform;
  isRoot: boolean;
  /** Contents of /etc/os-release, or '' when absent. */
  osRelease: string;
  hasAptGet: boolean;
}

export type InstallPlan = { kind: 'apt' } | { kind: 'manual'; instruction: string };

/** Decides how redis-server can be had on this host: a pure function of the facts. */
export function planRedisInstall(host: HostFacts): InstallPlan {
  const ids = /^(ID|ID_LIKE)=(.*)$/gm;
  const family = [...host.osRelease.matchAll(ids)].map((m) => (m[2] ?? '').replace(/"/g, '')).join(' ');
  const debianLike = /\b(debian|ubuntu)\b/.test(family);
  if (host.platform === 'linux' && debianLike && host.hasAptGet) {
    if (host.isRoot) return { kind: 'apt' };
    return { kind: 'manual', instruction: 'redis-server is not installed: run `sudo apt-get install -y redis-server`, or set REDIS_URL to a running Redis' };
  }
  if (host.platform === 'darwin') {
    return { kind: 'manual', instruction: 'redis-server is not installed: run `brew install redis`, or set REDIS_URL to a running Redis' };
  }
  return { kind: 'manual', instruction: 'redis-server is not installed: install Redis 6.2 or newer with your package manager, or set REDIS_URL to a running Redis' };
}

export function readHostFacts(searchPath: string): HostFacts {
  let osRelease = '';
  try {
    osRelease = readFileSync('/etc/os-release', 'utf8');
  } catch {
    // not Linux, or a minimal image
  }
  return {
    platform: process.platform,
    isRoot: typeof process.getuid === 'function' && process.getuid() === 0,
    osRelease,
    hasAptGet: findOnPath('apt-get', searchPath) !== undefined,
  };
}

function findOnPath(name: string, searchPath: string): string | undefined {
  for (const dir of [...searchPath.split(path.delimiter).filter(Boolean), ...EXTRA_DIRS]) {
    try {
      accessSync(path.join(dir, name), constants.X_OK);
      return path.join(dir, name);
    } catch {
      // keep looking
    }
  }
  return undefined;
}

export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

function apt(args: string[], options: { quiet?: boolean } = {}): boolean {
  const run = spawnSync('apt-get', args, {
    stdio: ['ignore', 'ignore', options.quiet ? 'ignore' : 'inherit'],
    // The child inherits this process's environment, plus one variable that keeps apt quiet.
    // eslint-disable-next-line no-restricted-properties
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return run.status === 0;
}

/**
 * Returns the path of redis-server, installing it first when the host allows.
 * Throws RedisUnavailableError with a one-line instruction otherwise.
 */
export function ensureRedisServer(options: { searchPath: string; log: (line: string) => void }): string {
  const found = findRedisServer(options.searchPath);
  if (found) return found;
  const plan = planRedisInstall(readHostFacts(options.searchPath));
  if (plan.kind === 'manual') throw new RedisUnavailableError(plan.instruction);
  options.log('redis-server is not installed; installing it with apt-get (once per machine)');
  // The package lists of a fresh machine may be empty or stale: update only when needed.
  // The first try is quiet: on empty package lists its failure is expected and says nothing useful.
  const install = ['install', '-y', '--no-install-recommends', 'redis-server'];
  const installed = apt(install, { quiet: true }) || (apt(['update']) && apt(install));
  const after = findRedisServer(options.searchPath);
  if (!installed || !after) {
    throw new RedisUnavailableError('redis-server could not be installed with apt-get: install it by hand, or set REDIS_URL to a running Redis');
  }
  return after;
}
