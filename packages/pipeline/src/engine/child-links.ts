/**
 * How a run and the child runs it started link to each other. The child's record names its parent
 * (`parent`: run and stage) and its depth (`depth`: 1 under a run nobody started, one more per
 * level); the parent's record names each child in a field `<stage>.child_run` (a child pipeline
 * step) or `<stage>.child_run.<turn>.<index>` (an agent's pipeline call), written before the child
 * is created, so that cancelling the parent finds every child it may have.
 */
import { TERMINAL_STATUSES } from '@switchyard/contracts';
import type { RunStore } from '../store/run-store.js';

/**
 * How deep child runs may nest: a run started by a run started by … at most this many levels
 * below a run nobody started. A pipeline that calls itself, directly or through others, stops here
 * with `child_depth_exceeded` instead of starting runs forever.
 */
export const MAX_CHILD_DEPTH = 5;

/** The field of the parent's hash that names the child of `stage` (and of an agent's call). */
export function childRunField(stage: string, call?: { turn: number; index: number }): string {
  return call ? `${stage}.child_run.${call.turn}.${call.index}` : `${stage}.child_run`;
}

/** Child run ids a run's record names (HSCAN: a run's hash is small, and this reads only its child fields). */
export async function childRunsOf(store: Pick<RunStore, 'redis' | 'keys'>, runId: string): Promise<string[]> {
  const children: string[] = [];
  let cursor = '0';
  do {
    const [next, entries] = await store.redis.hscan(store.keys.run(runId), cursor, 'MATCH', '*.child_run*', 'COUNT', 200);
    cursor = next;
    for (let i = 1; i < entries.length; i += 2) if (entries[i]) children.push(entries[i] as string);
  } while (cursor !== '0');
  return children;
}

/**
 * Cancels each child of `runId` still going, and theirs (bounded by MAX_CHILD_DEPTH levels). The
 * parent's own step notices too when it next looks, but only after its poll interval.
 */
export async function cancelChildRuns(store: RunStore, runId: string, cancel: (store: RunStore, childId: string) => Promise<unknown>): Promise<void> {
  const children = await childRunsOf(store, runId);
  if (children.length === 0) return;
  const statuses = await store.getStatuses(children);
  await Promise.all(children.filter((_, i) => statuses[i] && !TERMINAL_STATUSES.includes(statuses[i] as never)).map((child) => cancel(store, child)));
}
