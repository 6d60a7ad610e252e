/**
 * MCP Tasks kept in Redis, one store per connection (its session), so that `tasks/get`,
 * `tasks/result`, `tasks/list` and `tasks/cancel` are answered by whichever bridge the client
 * reaches — the work itself runs in the bridge that created the task. A task moves out of
 * `working` once only: the move is one Lua script, so a cancel and a finishing call cannot both win.
 *
 * The bridge running a task renews a lease on it while the call runs. A reader that finds a
 * working task past its lease knows that bridge is gone (killed, or stopped mid-call) and fails
 * the task with a result saying so, so that no client waits on it until its ttl.
 */
import { randomBytes } from 'node:crypto';
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { Request, RequestId, Result, Task } from '@modelcontextprotocol/sdk/types.js';
import type { Redis } from 'ioredis';
import { sessionKeys } from '../http/keys.js';
import { TaskLeases } from './task-leases.js';

const TERMINAL = ['completed', 'failed', 'cancelled'];

// KEYS[1] task hash. ARGV: status, at, message, result JSON ('' for none), ttl ms ('' keeps it).
// Answers 1 when moved, 0 when there is no such task, -1 when it had ended already.
const MOVE_SCRIPT = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 0 end
if status == 'completed' or status == 'failed' or status == 'cancelled' then return -1 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'last_updated_at', ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'status_message', ARGV[3]) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'result', ARGV[4]) end
if ARGV[5] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
return 1
`;

const STOPPED_MESSAGE = 'The bridge process running this call stopped before it finished; call the tool again.';
const STOPPED_RESULT = JSON.stringify({ content: [{ type: 'text', text: JSON.stringify({ error: { code: 'bridge_stopped', message: STOPPED_MESSAGE } }) }], isError: true } satisfies Result);

/** Moves a working task to `status`; 1 when moved, 0 when missing, -1 when it had ended. */
async function moveTask(options: { redis: Redis; key: string; status: Task['status']; message: string; result: string; expiryMs?: string }): Promise<number> {
  const { redis, key, status, message, result, expiryMs } = options;
  return (await redis.eval(MOVE_SCRIPT, 1, key, status, new Date().toISOString(), message, result, expiryMs ?? '')) as number;
}

export interface RedisTaskStoreOptions {
  redis: Redis;
  prefix: string;
  /** The connection's session; tasks of other sessions are invisible to it. */
  sessionId: string;
  /** Lifetime of a task that asks for none, and the most any may ask for, in ms (default 1 h, 24 h). */
  defaultTtlMs?: number;
  maxTtlMs?: number;
  /** The leases of this process's running tasks, shared by its stores (see taskLeases). */
  leases: TaskLeases;
  /** Told of each status a task of this store enters (default: nobody). */
  observer?: { entered(status: Task['status']): void } | undefined;
}

/** The one TaskLeases of a bridge process; its `close` fails the tasks still running in it. */
export function taskLeases(options: { redis: Redis; leaseMs?: number }): TaskLeases {
  return new TaskLeases({ ...options, failStopped: (key) => moveTask({ redis: options.redis, key, status: 'failed', message: STOPPED_MESSAGE, result: STOPPED_RESULT }).then(() => undefined) });
}

export class RedisTaskStore implements TaskStore {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #sessionId: string;
  readonly #defaultTtl: number;
  readonly #maxTtl: number;
  readonly #leases: TaskLeases;
  readonly #observer: RedisTaskStoreOptions['observer'];

  constructor(options: RedisTaskStoreOptions) {
    this.#redis = options.redis;
    this.#prefix = options.prefix;
    this.#sessionId = options.sessionId;
    this.#defaultTtl = options.defaultTtlMs ?? 3600_000;
    this.#maxTtl = options.maxTtlMs ?? 24 * 3600_000;
    this.#leases = options.leases;
    this.#observer = options.observer;
  }

  // A task and the session's index of them are written together: both under the session's tag.
  #key = (taskId: string) => sessionKeys(this.#prefix, this.#sessionId).task(taskId);
  #index = () => sessionKeys(this.#prefix, this.#sessionId).tasks;

  async createTask(params: CreateTaskOptions, requestId: RequestId, request: Request): Promise<Task> {
    const taskId = randomBytes(16).toString('hex');
    const ttl = Math.min(params.ttl ?? this.#defaultTtl, this.#maxTtl);
    const at = new Date().toISOString();
    const task: Task = { taskId, status: 'working', ttl, createdAt: at, lastUpdatedAt: at, pollInterval: params.pollInterval ?? 1000 };
    await this.#redis
      .multi()
      .hset(this.#key(taskId), {
        session: this.#sessionId,
        status: 'working',
        ttl,
        created_at: at,
        last_updated_at: at,
        poll_interval: task.pollInterval ?? 1000,
        request_id: String(requestId),
        method: request.method,
        lease_until: this.#leases.until(),
      })
      .pexpire(this.#key(taskId), ttl)
      .zadd(this.#index(), Date.parse(at), taskId)
      .pexpire(this.#index(), this.#maxTtl)
      .exec();
    this.#leases.hold(this.#key(taskId));
    this.#observer?.entered('working');
    return task;
  }

  async getTask(taskId: string): Promise<Task | null> {
    return this.#toTask(taskId, await this.#read(taskId));
  }

  async storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result): Promise<void> {
    const moved = await this.#move(taskId, status, '', JSON.stringify(result));
    this.#leases.release(this.#key(taskId));
    if (moved === 0) throw new Error(`Task ${taskId} not found`);
    if (moved < 0) throw new Error(`Task ${taskId} has ended already; its result is stored once`);
  }

  async getTaskResult(taskId: string): Promise<Result> {
    const { session, result } = await this.#read(taskId);
    if (session !== this.#sessionId) throw new Error(`Task ${taskId} not found`);
    if (!result) throw new Error(`Task ${taskId} has no result stored`);
    return JSON.parse(result) as Result;
  }

  async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string): Promise<void> {
    const moved = await this.#move(taskId, status, statusMessage ?? '', '');
    if (TERMINAL.includes(status)) this.#leases.release(this.#key(taskId));
    if (moved === 0) throw new Error(`Task ${taskId} not found`);
    if (moved < 0) throw new Error(`Task ${taskId} has ended already`);
  }

  async listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const PAGE = 20;
    const start = cursor ? Number.parseInt(cursor, 10) : 0;
    if (!Number.isInteger(start) || start < 0) throw new Error(`Invalid cursor: ${cursor}`);
    const ids = await this.#redis.zrange(this.#index(), start, start + PAGE - 1);
    const hashes = await Promise.all(ids.map((id) => this.#read(id)));
    const tasks = ids.map((id, i) => this.#toTask(id, hashes[i] ?? {})).filter((task): task is Task => task !== null);
    return { tasks, ...(ids.length === PAGE ? { nextCursor: String(start + PAGE) } : {}) };
  }

  /** The task's hash; a working task past its lease is failed first, as its bridge is gone. */
  async #read(taskId: string): Promise<Record<string, string>> {
    const hash = await this.#redis.hgetall(this.#key(taskId));
    if (hash.session !== this.#sessionId || hash.status !== 'working' || !hash.lease_until) return hash;
    if (Number(hash.lease_until) >= Date.now() || this.#leases.holds(this.#key(taskId))) return hash;
    await moveTask({ redis: this.#redis, key: this.#key(taskId), status: 'failed', message: STOPPED_MESSAGE, result: STOPPED_RESULT });
    return this.#redis.hgetall(this.#key(taskId));
  }

  async #move(taskId: string, status: Task['status'], message: string, result: string): Promise<number> {
    const [session, ttl] = await this.#redis.hmget(this.#key(taskId), 'session', 'ttl');
    if (session !== this.#sessionId) return 0;
    // An ended task stays readable for its ttl from the moment it ended.
    const expiry = TERMINAL.includes(status) && ttl ? ttl : '';
    const moved = await moveTask({ redis: this.#redis, key: this.#key(taskId), status, message, result, expiryMs: expiry });
    if (moved === 1) this.#observer?.entered(status);
    return moved;
  }

  #toTask(taskId: string, hash: Record<string, string>): Task | null {
    if (hash.session !== this.#sessionId || !hash.status) return null;
    return {
      taskId,
      status: hash.status as Task['status'],
      ttl: hash.ttl ? Number(hash.ttl) : null,
      createdAt: hash.created_at ?? '',
      lastUpdatedAt: hash.last_updated_at ?? '',
      pollInterval: Number(hash.poll_interval ?? 1000),
      ...(hash.status_message ? { statusMessage: hash.status_message } : {}),
    };
  }
}
