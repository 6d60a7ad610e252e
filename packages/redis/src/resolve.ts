/**
 * The one place that decides which Redis a process talks to: REDIS_URL when given, otherwise a
 * local redis-server this process starts (installing it first on a fresh Debian machine).
 */
import { fileURLToPath } from 'node:url';
import { Redis, type RedisOptions } from 'ioredis';
import { ensureRedisServer } from './install.js';
import { startLocalRedis, type LocalRedis } from './local-server.js';
import { followRedis } from './outages.js';

/** Root of the repository: local state lives under its `.data/`. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export type RedisHandle = LocalRedis;

export interface ResolveRedisOptions {
  /** A Redis URL to use as is (REDIS_URL). When absent, a local server is used. */
  url?: string | undefined;
  /** Where the local server keeps its data. Default: `.data/redis` under the repository. */
  dataDir?: string;
  /** PATH to search for redis-server. Default: the process's PATH. */
  searchPath?: string;
  /** Where progress lines go. Default: stderr. */
  log?: (line: string) => void;
}

export async function resolveRedis(options: ResolveRedisOptions = {}): Promise<RedisHandle> {
  if (options.url) {
    const parsed = new URL(options.url);
    if (!/^rediss?:$/.test(parsed.protocol)) throw new Error(`REDIS_URL must start with redis:// or rediss://, got ${parsed.protocol}`);
    return { url: options.url, owned: false, stop: async () => undefined };
  }
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const binary = ensureRedisServer({ searchPath: options.searchPath ?? defaultSearchPath(), log });
  return startLocalRedis({ binary, dataDir: options.dataDir ?? `${REPO_ROOT}.data/redis` });
}

function defaultSearchPath(): string {
  // eslint-disable-next-line no-restricted-properties -- PATH is how binaries are found, not configuration
  return process.env.PATH ?? '';
}

/**
 * An ioredis client for `url`. BullMQ needs `maxRetriesPerRequest: null` on the connections its
 * workers block on, so that is the default here; pass overrides for short-lived clients.
 */
export function createRedisClient(url: string, overrides: RedisOptions = {}): Redis {
  return followRedis(new Redis(url, { maxRetriesPerRequest: null, ...overrides }));
}
