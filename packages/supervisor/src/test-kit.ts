/**
 * What the Supervisor's tests share: an engine on the test run's Redis with a key prefix and a
 * workspace root of its own, users made through the store, sessions logged in through the tools,
 * and a snapshot of every key, to show that a refused call wrote nothing.
 */
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { memorySession } from '@switchyard/tool-suite';
import type { SupervisorTool } from './args.js';
import { SupervisorEngine, type SupervisorEngineOptions } from './engine.js';
import { TOOL_OUTPUTS } from './outputs.js';
import type { SupervisorReply } from './replies.js';
import type { SessionStore } from './session.js';

export interface Harness {
  redis: Redis;
  prefix: string;
  workspaceRoot: string;
  engine: SupervisorEngine;
  close(): Promise<void>;
}

/** An engine on its own Redis connection, key prefix and workspace root (unless given). */
export async function harness(options: Partial<Pick<SupervisorEngineOptions, 'prefix' | 'workspaceRoot' | 'clock'>> = {}): Promise<Harness> {
  const redis = createRedisClient((await testRedis()).url);
  const prefix = options.prefix ?? uniquePrefix('supervisor');
  const workspaceRoot = options.workspaceRoot ?? (await mkdtemp(path.join(os.tmpdir(), 'supervisor-ws-')));
  const engine = new SupervisorEngine({ redis, prefix, workspaceRoot, ...(options.clock ? { clock: options.clock } : {}) });
  return { redis, prefix, workspaceRoot, engine, close: async () => void (await redis.quit()) };
}

export interface Agent {
  session: SessionStore;
  call(tool: SupervisorTool, args?: Record<string, unknown>): Promise<SupervisorReply>;
  /** Calls and asserts the answer is not a failure; returns its content. */
  ok(tool: SupervisorTool, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Calls and asserts the answer is a failure; returns its content. */
  fails(tool: SupervisorTool, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** Every answer has exactly the seed's fields for its tool, and is flagged a failure exactly when it is one. */
export function checkReply(tool: SupervisorTool, reply: SupervisorReply): SupervisorReply {
  const parsed = TOOL_OUTPUTS[tool].safeParse(reply.content);
  assert.ok(parsed.success, `${tool} answered a shape the seed does not have: ${JSON.stringify(reply.content)}\n${parsed.error?.message ?? ''}`);
  const { content } = reply;
  const failed = content.status === 'error' || content.success === false || (content.error !== undefined && content.error_code !== undefined);
  assert.equal(reply.isError === true, failed, `${tool}: isError does not match ${JSON.stringify(content)}`);
  return reply;
}

export function agent(engine: SupervisorEngine, session: SessionStore = memorySession()): Agent {
  const call = async (tool: SupervisorTool, args: Record<string, unknown> = {}) => checkReply(tool, await engine.call(tool, args, session));
  return {
    session,
    call,
    ok: async (tool, args) => {
      const reply = await call(tool, args);
      assert.notEqual(reply.isError, true, `${tool} failed: ${JSON.stringify(reply.content)}`);
      return reply.content;
    },
    fails: async (tool, args) => {
      const reply = await call(tool, args);
      assert.equal(reply.isError, true, `${tool} should have failed: ${JSON.stringify(reply.content)}`);
      return reply.content;
    },
  };
}

/** A new user, a session logged in to a new project of theirs, and the ids involved. */
export async function loggedInAgent(h: Harness, options: { username?: string; workspace?: string; session?: SessionStore } = {}) {
  const username = options.username ?? `user-${Math.random().toString(36).slice(2, 10)}`;
  const { user, api_token } = await h.engine.store.createUser({ username });
  const { project } = await h.engine.store.createProject({ owner_id: user.user_id, project_name: `${username}'s project` }, '2024-01-20T10:30:00Z');
  const a = agent(h.engine, options.session);
  const workspace_path = options.workspace ?? username;
  await a.ok('login_with_project', { username, api_token, project_id: project.project_id, workspace_path });
  return { agent: a, user, api_token, project, workspace: path.join(h.workspaceRoot, workspace_path) };
}

/** Every key under the prefix with its value, to compare before and after a call. */
export async function snapshot(redis: Redis, prefix: string): Promise<Record<string, unknown>> {
  const keys = (await redis.keys(`${prefix}:*`)).sort();
  const values: Record<string, unknown> = {};
  for (const key of keys) {
    const type = await redis.type(key);
    if (type === 'hash') values[key] = await redis.hgetall(key);
    else if (type === 'string') values[key] = await redis.get(key);
    else if (type === 'list') values[key] = await redis.lrange(key, 0, -1);
    else if (type === 'set') values[key] = (await redis.smembers(key)).sort();
    else if (type === 'zset') values[key] = await redis.zrange(key, 0, -1, 'WITHSCORES');
    else values[key] = type;
  }
  return values;
}
