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
 * Up to this many commands, `KeyedPipeline.exec()` sends them as they are, one after the other on
 * the connection (so still in one round trip, in order): making an ioredis pipeline copies every
 * script defined on its connection, and BullMQ defines 64 on a connection it shares, so one costs
 * about 35 µs of CPU, more than a few commands' own writes (docs/PERFORMANCE.md).
 */
export const KEYED_PIPELINE_DIRECT_MAX = 4;

/** A command put on a KeyedPipeline: its method on the client, its arguments, and its group. */
interface Recorded {
  group: string;
  method: string;
  args: unknown[];
}

/** Calls `method` on `target` (a client or a pipeline); a name that is no command fails as a reply. */
function call(target: object, method: string, args: unknown[]): unknown {
  const fn = (target as Record<string, unknown>)[method];
  if (typeof fn !== 'function') throw new Error(`${method} is not a Redis command`);
  return (fn as (...a: unknown[]) => unknown).apply(target, args);
}

/** Sends a command now, as a pipeline's exec would: its failure, even a synchronous one, is its reply. */
function sendNow(client: Redis, method: string, args: unknown[]): Promise<unknown> {
  try {
    return Promise.resolve(call(client, method, args));
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * A pipeline over keys of many slots: `on(key)` gives what to put the command on `key` on (call
 * commands on it, chained or not), `exec()` answers every command's reply in the order they were
 * put, each as `[error, result]`. A few commands are sent as they are (KEYED_PIPELINE_DIRECT_MAX).
 * More, on a single Redis, go in one pipeline, one round trip; on a cluster they are grouped by the
 * master serving their slot (by slot while the slot map is not known yet), one pipeline each,
 * sent at once.
 */
export class KeyedPipeline {
  readonly #client: Redis;
  readonly #cluster: Cluster | undefined;
  readonly #commands: Recorded[] = [];

  constructor(client: Redis) {
    this.#client = client;
    this.#cluster = isCluster(client) ? (client as unknown as Cluster) : undefined;
  }

  get length(): number {
    return this.#commands.length;
  }

  on(key: string): ChainableCommander {
    const group = this.#groupOf(key);
    const commands = this.#commands;
    const recorder: object = new Proxy(
      {},
      {
        // `then` is asked by whatever awaits the recorder: it is no command.
        get: (_target, method) => (typeof method !== 'string' || method === 'then' ? undefined : (...args: unknown[]) => (commands.push({ group, method, args }), recorder)),
      },
    );
    return recorder as ChainableCommander;
  }

  async exec(): Promise<Replies> {
    const commands = this.#commands;
    // Sent before exec() returns, as a pipeline's are, so that a command issued after it follows them.
    if (commands.length <= KEYED_PIPELINE_DIRECT_MAX) return settled(commands.map(({ method, args }) => sendNow(this.#client, method, args)));
    const groups = new Map<string, Recorded[]>();
    for (const command of commands) {
      const group = groups.get(command.group);
      if (group) group.push(command);
      else groups.set(command.group, [command]);
    }
    const replies = new Map<Recorded, [Error | null, unknown]>();
    await Promise.all(
      [...groups.values()].map(async (group) => {
        const pipeline = this.#client.pipeline();
        for (const { method, args } of group) call(pipeline, method, args);
        const results = (await pipeline.exec()) ?? [];
        group.forEach((command, i) => replies.set(command, results[i] ?? [new Error('no reply'), null]));
      }),
    );
    return commands.map((command) => replies.get(command) ?? [new Error('no reply'), null]);
  }

  /**
   * The results in order, or the first failed command's error: for a caller that would otherwise
   * take a failed read for an empty one (a run gone, a key not there) or a failed write for done.
   */
  async execOrThrow(): Promise<unknown[]> {
    const replies = await this.exec();
    const failed = replies.find(([error]) => error !== null);
    if (failed?.[0]) throw failed[0];
    return replies.map(([, result]) => result);
  }

  #groupOf(key: string): string {
    if (!this.#cluster) return '';
    const slot = keySlot(key);
    return this.#cluster.slots[slot]?.[0] ?? `slot:${slot}`;
  }
}

/** Each promise's outcome as a pipeline's reply: `[error, result]`. */
async function settled(sent: readonly Promise<unknown>[]): Promise<Replies> {
  return (await Promise.allSettled(sent)).map((outcome) => (outcome.status === 'fulfilled' ? [null, outcome.value] : [outcome.reason instanceof Error ? outcome.reason : new Error(String(outcome.reason)), null]));
}
