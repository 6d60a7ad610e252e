/**
 * How writes gathered over one turn of the event loop are cut into script calls: in order, at most
 * `maxPerCall` a call, and on a Redis Cluster one run slot a call (a script's keys must share one).
 */
import { keySlot } from '@switchyard/redis';

export function callGroups<T>(items: readonly T[], options: { maxPerCall: number; cluster: boolean; keyOf: (item: T) => string }): T[][] {
  const groups: T[][] = [];
  for (const group of options.cluster ? bySlot(items, options.keyOf) : [items]) {
    for (let i = 0; i < group.length; i += options.maxPerCall) groups.push(group.slice(i, i + options.maxPerCall));
  }
  return groups;
}

/** The items grouped by the slot of their key, each group in order. */
function bySlot<T>(items: readonly T[], keyOf: (item: T) => string): T[][] {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const slot = keySlot(keyOf(item));
    const group = groups.get(slot);
    if (group) group.push(item);
    else groups.set(slot, [item]);
  }
  return [...groups.values()];
}
