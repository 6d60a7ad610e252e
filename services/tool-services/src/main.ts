/**
 * Runs the four reference tool services and the offline model in one process until SIGINT/SIGTERM.
 */
import { createLogger } from '@switchyard/logger';
import { startTracing, telemetryConfig } from '@switchyard/telemetry';
import { createOfflineAuthor } from './authors/offline/index.js';
import { loadEnv, serviceFaults } from './env.js';
import { startToolServices } from './stack.js';

const env = loadEnv();
const logger = createLogger({ name: 'tool-services', level: env.LOG_LEVEL });
const tracing = await startTracing({ service: 'tool-services', config: telemetryConfig(env) });
// LangChain is loaded only when a model is configured; the offline author needs none of it.
const author = env.LLM_BASE_URL
  ? (await import('./authors/llm/index.js')).createLlmAuthor({ baseUrl: env.LLM_BASE_URL, model: env.LLM_MODEL, apiKey: env.LLM_API_KEY })
  : createOfflineAuthor();
if (env.TOOL_SERVICE_API_KEYS.length === 0) logger.warn('TOOL_SERVICE_API_KEYS is empty: the tool services accept calls without a key');

const stack = await startToolServices({
  author,
  logger,
  apiKeys: env.TOOL_SERVICE_API_KEYS,
  host: env.HOST,
  ports: { search: env.SEARCH_SERVICE_PORT, outline: env.OUTLINE_SERVICE_PORT, writing: env.WRITING_SERVICE_PORT, editing: env.EDITING_SERVICE_PORT },
  faults: {
    latencyMs: env.FAULT_LATENCY_MS,
    failureRate: env.FAULT_FAILURE_RATE,
    failureStatus: env.FAULT_FAILURE_STATUS,
    streamCutAfterChunks: env.FAULT_STREAM_CUT_AFTER ?? null,
    streamCutRate: env.FAULT_STREAM_CUT_RATE,
    asyncPollsNeeded: env.FAULT_ASYNC_POLLS,
  },
  faultsByService: serviceFaults(env),
  taskRetentionMs: env.TASK_RETENTION_MS,
  tasks: { readRetentionMs: env.TASK_READ_RETENTION_MS, maxFinished: env.TASK_MAX_FINISHED },
  modelPort: env.MODEL_SERVICE_PORT,
  modelFaults: {
    latencyMs: env.FAULT_MODEL_LATENCY_MS,
    tokenDelayMs: env.FAULT_MODEL_TOKEN_DELAY_MS,
    failureRate: env.FAULT_MODEL_FAILURE_RATE,
    failureStatus: env.FAULT_MODEL_FAILURE_STATUS,
    retryAfterMs: env.FAULT_MODEL_RETRY_AFTER_MS,
    rateLimit: env.FAULT_MODEL_RATE_LIMIT ?? null,
  },
});
for (const service of Object.values(stack.services)) logger.info({ url: service.url, author: author.name }, `${service.key} service listening`);
logger.info({ url: stack.model.baseUrl }, 'offline model listening (OpenAI-compatible)');

const shutdown = async (signal: string) => {
  logger.info({ signal }, 'stopping tool services');
  await stack.close();
  await tracing.shutdown();
  process.exit(0);
};
process.once('SIGINT', () => void shutdown('SIGINT'));
process.once('SIGTERM', () => void shutdown('SIGTERM'));
