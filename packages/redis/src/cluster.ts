/**
 * What differs when the client is a Redis Cluster, in one place: the slot of a key, a SCAN over
 * every master (a Cluster's own SCAN asks one node), and a pipeline whose commands touch many
 * slots (ioredis refuses a pipeline that spans nodes, so it is split per node and the replies put
 * back in order). On a single Redis each is the plain thing: one SCAN, one pipeline.
 */
import calculateSlot from 'cluster-key-slot';
import type { ChainableCommander, Cluster, Redis } from 'ioredis';
import { isCluster } from './resolve.js';

/** The cluster slot (0–16383) of `key`: the CRC16 of its hash tag (`{…}`) or of the whole key. */
export function keySlot(key: string): number {
  return calculateSlot(key);
}

/**
 * The keys matching `pattern` on every master of a cluster, or on the one Redis.
 * @param options.maxScanned stop after about this many keys looked at per node (default: no limit)
 */
export async function scanKeys(client: Redis, pattern: string, options: { maxScanned?: number } = {}): Promise<string[]> {
  const nodes = await masters(client);
  const found: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    let scanned = 0;
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      scanned += 1000;
      found.push(...keys);
    } while (cursor !== '0' && scanned < (options.maxScanned ?? Infinity));
  }
  return found;
}

/**
 * The masters of a cluster once its slot map is known (a client that has sent nothing yet knows
 * no node), or the one Redis.
 */
export async function masters(client: Redis): Promise<Redis[]> {
  if (!isCluster(client)) return [client];
  const cluster = client as unknown as Cluster;
  if (cluster.status !== 'ready') await cluster.ping();
  return cluster.nodes('master');
}

type Replies = [error: Error | null, result: unknown][];

/**
 * A pipeline over keys of many slots: `on(key)` gives the pipeline to put the command on `key`
 * on (call one command on it), `exec()` answers every command's reply in the order they were
 * put. On a single Redis that is one pipeline, one round trip. On a cluster the commands are
 * grouped by the master serving their slot (by slot while the slot map is not known yet), one
 * pipeline each, sent at once.
 */
export class KeyedPipeline {
  readonly #client: Redis;
  readonly #cluster: Cluster | undefined;
  readonly #groups = new Map<string, { pipeline: ChainableCommander; size: number }>();
  readonly #order: [group: string, index: number][] = [];

  constructor(client: Redis) {
    this.#client = client;
    this.#cluster = isCluster(client) ? (client as unknown as Cluster) : undefined;
  }

  get length(): number {
    return this.#order.length;
  }

  on(key: string): ChainableCommander {
    const group = this.#groupOf(key);
    let entry = this.#groups.get(group);
    if (!entry) this.#groups.set(group, (entry = { pipeline: this.#client.pipeline(), size: 0 }));
    this.#order.push([group, entry.size]);
    entry.size += 1;
    return entry.pipeline;
  }

  async exec(): Promise<Replies> {
    const groups = [...this.#groups.entries()];
    const results = await Promise.all(groups.map(async ([, entry]) => (await entry.pipeline.exec()) ?? []));
    const byGroup = new Map(groups.map(([name], i) => [name, results[i] as Replies]));
    return this.#order.map(([group, index]) => byGroup.get(group)?.[index] ?? [new Error('no reply'), null]);
  }

  #groupOf(key: string): string {
    if (!this.#cluster) return '';
    const slot = keySlot(key);
    return this.#cluster.slots[slot]?.[0] ?? `slot:${slot}`;
  }
}
