/**
 * The bound on a tree of runs: the child runs started under one root run, at every depth (child
 * pipeline steps and agents' calls of pipelines), at most `descendantsPerRun` (RUN_MAX_DESCENDANTS).
 * Depth alone (MAX_CHILD_DEPTH) leaves breadth free: a map of a thousand items calling its own
 * pipeline would make 1000^5 runs. The root keeps the set of its descendants' ids
 * (`{sy:run:<root>}:tree`, on its own slot): a child's id is derived from what starts it, so a job
 * retried after a crash admits the same id again and counts once. The set lives as long as the
 * retention after its last child (a root that outlives that starts counting anew).
 */
import type { Redis } from 'ioredis';
import { scriptCommand } from '@switchyard/redis';
import type { RunKeys } from './keys.js';

/** KEYS: the root's tree. ARGV: child id, the most the tree may hold, ms the set lives. Answers {1 admitted | 0 refused, count}. */
const ADMIT_CHILD_SCRIPT = `
local n = redis.call('SCARD', KEYS[1])
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return {1, n} end
if n >= tonumber(ARGV[2]) then return {0, n} end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, n + 1}`;

/** A tree of runs that has started as many child runs as it may (RUN_MAX_DESCENDANTS). */
export class ChildBudgetError extends Error {
  override name = 'ChildBudgetError';
  readonly code = 'child_budget_exceeded';
  readonly details: { root_run: string; limit: number; variable: string };

  constructor(options: { root: string; most: number }) {
    super(`run ${options.root} and its descendants have started ${options.most} child runs, the most one tree of runs may start (RUN_MAX_DESCENDANTS); a pipeline that fans out into itself?`);
    this.details = { root_run: options.root, limit: options.most, variable: 'RUN_MAX_DESCENDANTS' };
  }
}

/** Admits the child `childId` into the tree of `root`, or throws ChildBudgetError when the tree is full. */
export async function admitDescendant(deps: { redis: Redis; keys: Pick<RunKeys, 'tree'>; retentionSeconds: number }, options: { root: string; childId: string; most: number }): Promise<void> {
  const ttlMs = deps.retentionSeconds * 1000;
  const [admitted] = (await scriptCommand(deps.redis, 'syAdmitChild', ADMIT_CHILD_SCRIPT, { numberOfKeys: 1 })(deps.keys.tree(options.root), options.childId, String(options.most), String(ttlMs))) as [number, number];
  if (admitted !== 1) throw new ChildBudgetError({ root: options.root, most: options.most });
}
