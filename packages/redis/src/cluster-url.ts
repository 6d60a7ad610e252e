/**
 * How a Redis Cluster is named where a Redis URL is expected, so that one string (REDIS_URL, and
 * every `redisUrl` handed between processes) names either a single Redis or a cluster:
 *
 *   redis-cluster://[user:password@]host:port[,host:port…]     seed nodes, plain TCP
 *   rediss-cluster://…                                         the same over TLS
 *
 * The seed nodes are where the client first asks for the slot map; it then talks to every master
 * the map names. `REDIS_CLUSTER_NODES=host:port,host:port` is the same thing in a variable of its
 * own (see `clusterUrl`).
 */

export interface ClusterSeeds {
  nodes: { host: string; port: number }[];
  username?: string;
  password?: string;
  tls: boolean;
}

const SCHEME = /^(rediss?)-cluster:\/\/(.*)$/;

/** True when `url` names a cluster (`redis-cluster://` or `rediss-cluster://`). */
export function isClusterUrl(url: string): boolean {
  return SCHEME.test(url);
}

/** The URL for seed nodes given as `host:port` (the form of REDIS_CLUSTER_NODES). */
export function clusterUrl(nodes: readonly string[], options: { tls?: boolean } = {}): string {
  if (nodes.length === 0) throw new Error('a Redis Cluster needs at least one seed node (host:port)');
  for (const node of nodes) parseNode(node);
  return `${options.tls ? 'rediss' : 'redis'}-cluster://${nodes.join(',')}`;
}

function parseNode(node: string): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:,/@]+):(\d{1,5})$/.exec(node.trim());
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65535) throw new Error(`a Redis Cluster seed node must be host:port, got "${node}"`);
  return { host: (match[1] as string).replace(/^\[|\]$/g, ''), port };
}

/** The seed nodes and credentials of a `redis-cluster://` URL; throws, naming the problem, on a bad one. */
export function parseClusterUrl(url: string): ClusterSeeds {
  const match = SCHEME.exec(url);
  if (!match) throw new Error(`not a Redis Cluster URL (redis-cluster://host:port,…): ${url}`);
  let rest = (match[2] as string).replace(/[/?].*$/, '');
  const seeds: ClusterSeeds = { nodes: [], tls: match[1] === 'rediss' };
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    const [user, password] = rest.slice(0, at).split(':', 2).map((part) => decodeURIComponent(part));
    if (password === undefined) seeds.password = user;
    else {
      if (user) seeds.username = user;
      seeds.password = password;
    }
    rest = rest.slice(at + 1);
  }
  seeds.nodes = rest.split(',').filter(Boolean).map(parseNode);
  if (seeds.nodes.length === 0) throw new Error(`a Redis Cluster URL names no seed node: ${url}`);
  return seeds;
}
