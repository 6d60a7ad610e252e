/** What every tool operation is given: the store, the calling session, the engine's settings. */
import type { SupervisorTool, ToolArgs } from '../args.js';
import type { SupervisorReply } from '../replies.js';
import type { SessionStore } from '../session.js';
import type { SupervisorStore } from '../store.js';

export interface OpsContext {
  store: SupervisorStore;
  session: SessionStore;
  workspaceRoot: string;
  serverName: string;
  apiUrl: string;
  healthTimeoutMs: number;
  clock(): Date;
  /** The clock as the seed writes times: 2024-01-20T10:30:00Z. */
  now(): string;
}

export type Op<T extends SupervisorTool> = (ctx: OpsContext, args: ToolArgs<T>) => Promise<SupervisorReply>;
export type Ops<T extends SupervisorTool> = { [K in T]: Op<K> };
