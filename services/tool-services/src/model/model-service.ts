/**
 * Starts the offline model endpoint on a port of its own, as the four tool services each have one.
 */
import { listen } from '@switchyard/http-kit';
import type { Logger } from '@switchyard/logger';
import { createModelApp, emptyModelStats, type ModelAppOptions, type ModelStats } from './model-app.js';
import { defaultModelFaults, type ModelFaultKnobs } from './model-faults.js';

export interface RunningModelService {
  /** The OpenAI base URL, `/v1` included (what LLM_BASE_URL takes), e.g. `http://127.0.0.1:8105/v1`. */
  baseUrl: string;
  /** The server's origin, where `/health` answers. */
  url: string;
  /** Live knobs: change them and the next request sees it. */
  faults: ModelFaultKnobs;
  /** Live counts of completions and streams. */
  stats: ModelStats;
  close(): Promise<void>;
}

export interface StartModelServiceOptions extends Pick<ModelAppOptions, 'apiKeys' | 'logger' | 'bodyLimit' | 'limits'> {
  /** Interface to bind. Default 127.0.0.1. */
  host?: string;
  /** Port; 0 or absent picks a free one. */
  port?: number;
  /** Initial fault knobs (all off by default). */
  faults?: Partial<ModelFaultKnobs>;
}

export async function startModelService(options: StartModelServiceOptions): Promise<RunningModelService> {
  const faults = defaultModelFaults(options.faults);
  const stats = emptyModelStats();
  const logger: Logger = options.logger;
  const app = createModelApp({ apiKeys: options.apiKeys, logger, faults, stats, ...(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}), ...(options.limits ? { limits: options.limits } : {}) });
  const listening = await listen(app, { port: options.port ?? 0, host: options.host });
  return { baseUrl: `${listening.url}/v1`, url: listening.url, faults, stats, close: listening.close };
}
