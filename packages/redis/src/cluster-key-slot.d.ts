// cluster-key-slot (a dependency of ioredis) ships no types: the two functions it exports.
declare module 'cluster-key-slot' {
  /** The Redis Cluster slot (0–16383) of a key, honouring its hash tag. */
  export default function calculateSlot(key: string | Buffer): number;
  /** The slot all `keys` share, or -1 when they do not share one. */
  export function generateMulti(keys: string[]): number;
}
