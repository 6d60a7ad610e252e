/**
 * How a deployment's keys are laid out over Redis Cluster slots. Redis Cluster hashes a key by its
 * first `{…}` (its hash tag) when it has one, and a script, MULTI or multi-key command must touch
 * keys of one slot. So, for a deployment named `sy` (QUEUE_PREFIX; `sy` and `{sy}` are the same):
 *
 *   {sy}:…            the shared slot: BullMQ's queues (their scripts need one slot), and every key
 *                     many runs or sessions share (indexes, batches, leases, pipeline definitions)
 *   {sy:run:<id>}:…   one run's own keys (hash, outputs, events): its scripts stay in one slot
 *                     while different runs spread over the masters
 *   {sy:<kind>:<id>}  likewise for the keys of one MCP session or module-docs project
 *   {sy:<suite>}      a suite whose scripts join keys of many of its entities (the Supervisor's
 *                     one-task-in-progress rule, AceFlow's workspace claims): one slot per suite
 *
 * Every key starts with `{sy`, so one SCAN pattern finds them all. On a single Redis the tags
 * change nothing but the names.
 */

export interface Keyspace {
  /** The deployment's name without braces, e.g. `sy`. */
  name: string;
  /** `{sy}`: the shared slot's prefix, and BullMQ's prefix. */
  shared: string;
  /** `{sy:<kind>:<id>}`: the prefix of one entity's keys, in a slot of their own. */
  own(kind: string, id: string): string;
  /** `{sy:<name>}`: the prefix of a group of keys kept in one slot of their own (e.g. a suite's). */
  group(name: string): string;
  /** A SCAN MATCH pattern for every key of the deployment. */
  pattern: string;
}

/** Escapes Redis glob characters, so that a name is matched as written. */
export function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/** The keyspace of a deployment prefix (`sy` or `{sy}`). */
export function keyspace(prefix: string): Keyspace {
  const name = prefix.replace(/[{}]/g, '');
  if (!name) throw new Error(`a key prefix needs a name, got "${prefix}"`);
  return {
    name,
    shared: `{${name}}`,
    own: (kind, id) => `{${name}:${kind}:${id}}`,
    group: (group) => `{${name}:${group}}`,
    pattern: `${globEscape(`{${name}`)}[}:]*`,
  };
}

/** True when `prefix` is hash-tagged as BullMQ needs on a cluster (`{sy}`). */
export function isTaggedPrefix(prefix: string): boolean {
  return /^\{[^{}]+\}$/.test(prefix);
}

/**
 * Throws, saying what to do, when `prefix` cannot serve BullMQ on a Redis Cluster: its queue
 * scripts touch many keys of a queue (and a flow's parent and children), all under the prefix.
 */
export function assertClusterPrefix(prefix: string, onCluster: boolean): void {
  if (onCluster && !isTaggedPrefix(prefix)) {
    throw new Error(`on a Redis Cluster the key prefix must be hash-tagged, e.g. {${prefix.replace(/[{}]/g, '') || 'sy'}} (QUEUE_PREFIX=sy is read as {sy}); got "${prefix}"`);
  }
}
