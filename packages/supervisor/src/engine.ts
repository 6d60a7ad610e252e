/**
 * The Supervisor backend behind the tool suite: one call per tool, with the arguments checked by
 * the tool's zod schema first (a VALIDATION_ERROR naming the field, and nothing written), then
 * the operation, whose refusals become the tool's failure shape. Engines share nothing but
 * Redis, so any number of them, in any number of processes, serve the same projects.
 */
import path from 'node:path';
import type { Cluster, Redis } from 'ioredis';
import { isCluster, REPO_ROOT } from '@switchyard/redis';
import { describeIssue, TOOL_ARGS, type SupervisorTool } from './args.js';
import { isoSeconds, SupervisorError } from './domain.js';
import { accountOps } from './ops/account.js';
import type { OpsContext } from './ops/context.js';
import { phaseOps } from './ops/phases.js';
import { sopOps } from './ops/sop.js';
import { taskOps } from './ops/tasks.js';
import { failureOf, type SupervisorReply } from './replies.js';
import type { SessionStore } from './session.js';
import { SupervisorStore } from './store.js';

export interface SupervisorEngineOptions {
  redis: Redis;
  /** Key prefix of the deployment (the queues' prefix); keys go under `{prefix}:supervisor:`. */
  prefix: string;
  /** Directory every session's workspace must be inside. Default: `.data/supervisor` under the repository. */
  workspaceRoot?: string;
  /** `server_name` answered by ping. Default: the seed's, 'Scienith Supervisor MCP'. */
  serverName?: string;
  /** `api_url` answered by health. Default: the Redis address, without credentials. */
  apiUrl?: string;
  /** How long health waits for Redis to answer. Default: 1000 ms. */
  healthTimeoutMs?: number;
  /** The clock. Default: the system clock. */
  clock?: () => Date;
}

const OPS = { ...accountOps, ...taskOps, ...phaseOps, ...sopOps };

export const DEFAULT_WORKSPACE_ROOT = path.join(REPO_ROOT, '.data', 'supervisor');

function redisAddress(redis: Redis): string {
  // A Cluster's own options hold no address: its masters, as it knows them now, name it.
  if (isCluster(redis)) return `redis-cluster://${(redis as unknown as Cluster).nodes('master').map((node) => `${node.options.host}:${node.options.port}`).sort().join(',')}`;
  const { host, port, db, tls } = redis.options;
  return `${tls ? 'rediss' : 'redis'}://${host ?? 'localhost'}:${port ?? 6379}/${db ?? 0}`;
}

export class SupervisorEngine {
  readonly store: SupervisorStore;
  readonly workspaceRoot: string;
  readonly #settings: Omit<OpsContext, 'session'>;

  constructor(options: SupervisorEngineOptions) {
    this.store = new SupervisorStore(options);
    this.workspaceRoot = path.resolve(options.workspaceRoot ?? DEFAULT_WORKSPACE_ROOT);
    const clock = options.clock ?? (() => new Date());
    this.#settings = {
      store: this.store,
      workspaceRoot: this.workspaceRoot,
      serverName: options.serverName ?? 'Scienith Supervisor MCP',
      apiUrl: options.apiUrl ?? redisAddress(options.redis),
      healthTimeoutMs: options.healthTimeoutMs ?? 1000,
      clock,
      now: () => isoSeconds(clock()),
    };
  }

  /** Runs one tool for the session. Never throws for a caller's mistake; throws for a bug or a broken Redis. */
  async call(tool: SupervisorTool, args: unknown, session: SessionStore): Promise<SupervisorReply> {
    const parsed = TOOL_ARGS[tool].safeParse(args ?? {});
    if (!parsed.success) return failureOf(tool, new SupervisorError('VALIDATION_ERROR', describeIssue(parsed.error)));
    const op = OPS[tool] as (ctx: OpsContext, args: unknown) => Promise<SupervisorReply>;
    try {
      return await op({ ...this.#settings, session }, parsed.data);
    } catch (error) {
      if (error instanceof SupervisorError) return failureOf(tool, error);
      throw error;
    }
  }
}
