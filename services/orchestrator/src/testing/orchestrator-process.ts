/**
 * An orchestrator in a Node process of its own (its `main.ts`, as in production), on a test
 * stack's Redis and key prefix, so that a test can SIGKILL it (or arm a crash point in it) and
 * carry on with another orchestrator. Every process started is killed by `killAll`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ToolServicesConfig } from '@switchyard/contracts';
import { freePort } from '@switchyard/redis';
import { sigkill, waitFor } from './worker-processes.js';

/** What an orchestrator process is started against, and the key it accepts. */
export interface OrchestratorTarget {
  redisUrl: string;
  prefix: string;
  toolConfig: ToolServicesConfig;
  apiKey: string;
}

export interface OrchestratorChild {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>` */
  url: string;
}

const orchestratorMain = fileURLToPath(new URL('../main.ts', import.meta.url));

export class OrchestratorProcesses {
  readonly #target: () => OrchestratorTarget;
  readonly children: ChildProcess[] = [];

  /** `target` is read when a process starts, so the pool may be made before the stack is. */
  constructor(target: () => OrchestratorTarget) {
    this.#target = target;
  }

  /** Starts an orchestrator with `extraEnv` on top, and resolves once it answers `GET /livez`. */
  async start(extraEnv: Record<string, string> = {}): Promise<OrchestratorChild> {
    const target = this.#target();
    const services = target.toolConfig.services;
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', orchestratorMain], {
      env: {
        PATH: process.env.PATH ?? '',
        REDIS_URL: target.redisUrl,
        QUEUE_PREFIX: target.prefix,
        PORT: String(port),
        HOST: '127.0.0.1',
        API_KEYS: target.apiKey,
        LOG_LEVEL: 'silent',
        SEARCH_SERVICE_URL: services.search.url,
        OUTLINE_SERVICE_URL: services.outline.url,
        WRITING_SERVICE_URL: services.writing.url,
        EDITING_SERVICE_URL: services.editing.url,
        TOOL_SERVICE_API_KEY: target.toolConfig.apiKey ?? '',
        ...extraEnv,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    this.children.push(child);
    const url = `http://127.0.0.1:${port}`;
    const live = async () => (await fetch(`${url}/livez`).then((res) => res.ok).catch(() => false)) || child.exitCode !== null;
    await waitFor(live, Boolean, 'the orchestrator process answers', 120_000);
    if (child.exitCode !== null) throw new Error(`the orchestrator process exited with ${child.exitCode} before it answered`);
    return { child, url };
  }

  /** SIGKILLs an orchestrator and waits until it has exited. */
  static kill(child: ChildProcess): Promise<void> {
    return sigkill(child);
  }

  async killAll(): Promise<void> {
    await Promise.all(this.children.map((child) => OrchestratorProcesses.kill(child)));
  }
}
