/**
 * Starts the four reference services (search, outline, writing, editing), each on its own port
 * as seed 004 describes them, and the offline OpenAI-compatible model on a port of its own. Used by
 * main.ts, the local launcher and tests.
 */
import { TOOL_SERVICE_KEYS, type ToolServiceKey } from '@switchyard/contracts';
import { listen, type Listening } from '@switchyard/http-kit';
import type { Logger } from '@switchyard/logger';
import { createToolServiceApp } from './app.js';
import type { StoryAuthor } from './authors/author.js';
import { defaultFaults, type FaultKnobs } from './faults.js';
import type { TaskStoreOptions } from './task-store.js';
import { startModelService, type RunningModelService } from './model/model-service.js';
import type { ModelFaultKnobs } from './model/model-faults.js';
import { SERVICE_TOOLS } from './tools.js';

export interface RunningToolService {
  key: ToolServiceKey;
  url: string;
  /** Live knobs of this service: change them and the next request sees it. */
  faults: FaultKnobs;
  close(): Promise<void>;
}

export interface ToolServicesStack {
  services: Record<ToolServiceKey, RunningToolService>;
  /** The offline model (`POST /v1/chat/completions`); its `baseUrl` is what LLM_BASE_URL takes. */
  model: RunningModelService;
  close(): Promise<void>;
}

export interface StartToolServicesOptions {
  author: StoryAuthor;
  logger: Logger;
  /** Keys callers must present; empty leaves the services open. Default []. */
  apiKeys?: readonly string[];
  /** Interface to bind. Default 127.0.0.1. */
  host?: string;
  /** Port per service; 0 or absent picks a free port. */
  ports?: Partial<Record<ToolServiceKey, number>>;
  /** Initial fault knobs, the same for each service (each gets its own copy). */
  faults?: Partial<FaultKnobs>;
  /** Knobs of one service, over `faults`. */
  faultsByService?: Partial<Record<ToolServiceKey, Partial<FaultKnobs>>>;
  /** Milliseconds between SSE keep-alive comments. Default 15000. */
  heartbeatMs?: number;
  /** How long finished async tasks stay readable, in ms. Default 1 h. */
  taskRetentionMs?: number;
  /** How long a task stays once its result is read (default 60 s), finished tasks kept at most (default 10,000). */
  tasks?: Pick<TaskStoreOptions, 'readRetentionMs' | 'maxFinished'>;
  /** Port of the offline model; 0 or absent picks a free port. */
  modelPort?: number;
  /** Initial fault knobs of the offline model (all off by default). */
  modelFaults?: Partial<ModelFaultKnobs>;
}

export async function startToolServices(options: StartToolServicesOptions): Promise<ToolServicesStack> {
  const started: RunningToolService[] = [];
  let model: RunningModelService | undefined;
  try {
    for (const key of TOOL_SERVICE_KEYS) {
      const faults = defaultFaults({ ...options.faults, ...options.faultsByService?.[key] });
      const app = createToolServiceApp({
        name: `${key}_service`,
        tools: SERVICE_TOOLS[key],
        author: options.author,
        apiKeys: options.apiKeys ?? [],
        faults,
        logger: options.logger.child({ tool_service: key }),
        heartbeatMs: options.heartbeatMs,
        ...(options.taskRetentionMs !== undefined ? { taskRetentionMs: options.taskRetentionMs } : {}),
        ...(options.tasks ? { tasks: options.tasks } : {}),
      });
      const listening: Listening = await listen(app, { port: options.ports?.[key] ?? 0, host: options.host });
      started.push({ key, url: listening.url, faults, close: listening.close });
    }
    model = await startModelService({
      apiKeys: options.apiKeys ?? [],
      logger: options.logger.child({ tool_service: 'model' }),
      host: options.host,
      port: options.modelPort ?? 0,
      faults: options.modelFaults,
    });
  } catch (error) {
    await Promise.all(started.map((s) => s.close()));
    throw error;
  }
  const byKey = Object.fromEntries(started.map((s) => [s.key, s])) as Record<ToolServiceKey, RunningToolService>;
  const running = model;
  return { services: byKey, model: running, close: async () => void (await Promise.all([...started.map((s) => s.close()), running.close()])) };
}
