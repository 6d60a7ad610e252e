/**
 * Why a queued run has not started, for its view: behind its concurrency key (its place in the
 * key's line), or its first waiting job's place in its queue (jobs of a higher class ahead:
 * `priority`; only its own class ahead: `fair_share`, served in turn with other keys; nothing
 * ahead: `starting`). A batch's run whose jobs are not in any queue yet waits for its batch's
 * dispatcher to add it, which it does as its key's backlog drains: `fair_share` too. Read when a
 * run is looked at, never kept.
 */
import type { RunFlowView } from '@switchyard/contracts';
import { jobId } from '../catalog.js';
import type { RunRecord } from '../store/run-record.js';
import type { RunStore } from '../store/run-store.js';
import type { ConcurrencyGates } from './concurrency-gate.js';
import type { FairShares } from './fair-shares.js';

/** Most of a run's pending stages looked for in their queues. */
const MOST_STAGES_LOOKED_AT = 8;

export async function waitingOf(deps: { store: RunStore; fair: FairShares; gates: ConcurrencyGates }, run: RunRecord): Promise<RunFlowView['waiting']> {
  if (run.status !== 'queued' || !run.flow) return undefined;
  if (run.flow.gate) {
    const standing = await deps.gates.standing(run.flow.gate, run.id);
    if (!standing.holding && standing.ahead !== null) return { reason: 'concurrency_key', ahead: standing.ahead, holders: standing.holders };
  }
  const queuesText = await deps.store.redis.hget(deps.store.keys.run(run.id), 'step_queues');
  const queues = queuesText ? (JSON.parse(queuesText) as Record<string, string>) : {};
  const pending = run.stages.filter((stage) => stage.status === 'pending').slice(0, MOST_STAGES_LOOKED_AT);
  for (const stage of pending) {
    const queue = queues[stage.name.split('.')[0] ?? ''];
    if (!queue) continue;
    const place = await deps.fair.placeOf(queue, jobId(run.id, stage.name));
    if (!place) continue;
    const reason = place.aheadHigherPriority > 0 ? 'priority' : place.ahead > 0 ? 'fair_share' : 'starting';
    return { reason, queue, ahead: place.ahead, ahead_higher_priority: place.aheadHigherPriority };
  }
  return { reason: run.batch_id ? 'fair_share' : 'starting' };
}
