/**
 * The one place that decides which Redis a process talks to: REDIS_URL when given, otherwise a
 * local redis-server this process starts (installing it first on a fresh Debian machine).
 */
import { fileURLToPath } from 'node:url';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { isClusterUrl, parseClusterUrl } from './cluster-url.js';
import { startContainerCluster, startContainerRedis, type ContainerRedis } from './containers.js';
import { ensureRedisServer } from './install.js';
import { startLocalCluster, type LocalCluster } from './local-cluster.js';
import { startLocalRedis, type LocalRedis } from './local-server.js';
import { followRedis } from './outages.js';

/** Root of the repository: local state lives under its `.data/`. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export type RedisHandle = LocalRedis | LocalCluster | ContainerRedis;

export interface ResolveRedisOptions {
  /** A Redis URL to use as is (REDIS_URL; `redis-cluster://…` for a cluster). When absent, a local server is used. */
  url?: string | undefined;
  /** With no `url`: start a local 3-master Redis Cluster (temporary data) instead of one server. Default false. */
  cluster?: boolean;
  /**
   * With no `url`: Redis from containers (testcontainers, the compose file's image; a Docker engine
   * must answer) instead of a local redis-server: one, or with `cluster` three masters. Default false.
   */
  container?: boolean;
  /** Where the local server keeps its data. Default: `.data/redis` under the repository. */
  dataDir?: string;
  /** PATH to search for redis-server. Default: the process's PATH. */
  searchPath?: string;
  /** Where progress lines go. Default: stderr. */
  log?: (line: string) => void;
}

export async function resolveRedis(options: ResolveRedisOptions = {}): Promise<RedisHandle> {
  if (options.url) {
    if (isClusterUrl(options.url)) {
      parseClusterUrl(options.url);
      return { url: options.url, owned: false, stop: async () => undefined };
    }
    const parsed = new URL(options.url);
    if (!/^rediss?:$/.test(parsed.protocol)) throw new Error(`REDIS_URL must start with redis:// or rediss://, got ${parsed.protocol}`);
    return { url: options.url, owned: false, stop: async () => undefined };
  }
  if (options.container) return options.cluster ? startContainerCluster() : startContainerRedis();
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const binary = ensureRedisServer({ searchPath: options.searchPath ?? defaultSearchPath(), log });
  if (options.cluster) return startLocalCluster({ binary });
  return startLocalRedis({ binary, dataDir: options.dataDir ?? `${REPO_ROOT}.data/redis` });
}

function defaultSearchPath(): string {
  // eslint-disable-next-line no-restricted-properties -- PATH is how binaries are found, not configuration
  return process.env.PATH ?? '';
}

/**
 * An ioredis client for `url`. BullMQ needs `maxRetriesPerRequest: null` on the connections its
 * workers block on, so that is the default here; pass overrides for short-lived clients.
 *
 * For a `redis-cluster://` URL this is an ioredis `Cluster` (the overrides apply to each node's
 * connection), typed as `Redis`: the two share the command interface every caller uses (commands,
 * scripts, pipelines of one slot, pub/sub, `duplicate()`, `status`), and BullMQ takes either.
 * Where they differ, code asks `isCluster(client)`: a SCAN must walk every master
 * (`scanKeys`), and a pipeline over many runs' keys is split per node (`KeyedPipeline`).
 */
export function createRedisClient(url: string, overrides: RedisOptions = {}): Redis {
  if (!isClusterUrl(url)) return followRedis(new Redis(url, { maxRetriesPerRequest: null, ...overrides }));
  const seeds = parseClusterUrl(url);
  const cluster = new Cluster(seeds.nodes, {
    redisOptions: {
      maxRetriesPerRequest: null,
      ...(seeds.username ? { username: seeds.username } : {}),
      ...(seeds.password ? { password: seeds.password } : {}),
      ...(seeds.tls ? { tls: {} } : {}),
      ...overrides,
    },
    ...(overrides.lazyConnect ? { lazyConnect: true } : {}),
  });
  return followRedis(cluster as unknown as Redis);
}

/** True when `client` is an ioredis Cluster (made by createRedisClient from a cluster URL). */
export function isCluster(client: Redis): boolean {
  return (client as unknown as { isCluster?: boolean }).isCluster === true;
}
