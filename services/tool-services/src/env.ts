/**
 * Configuration of the reference tool services, parsed once at start-up.
 */
import { z } from 'zod';
import { DEFAULT_TOOL_SERVICES, TOOL_SERVICE_KEYS, type ToolServiceKey } from '@switchyard/contracts';
import { commaList, loadEnv as load } from '@switchyard/config';
import { LogLevel } from '@switchyard/logger';
import { telemetryEnvShape } from '@switchyard/telemetry';
import type { FaultKnobs } from './faults.js';

const port = z.coerce.number().int().min(0).max(65535);
const ms = z.coerce.number().int().min(0).max(3_600_000);

/**
 * Per-service simulated slowness, for benchmarks at realistic latencies (all unset by default):
 * `FAULT_<SERVICE>_LATENCY_MS` (before each run answers; overrides FAULT_LATENCY_MS for that
 * service), `FAULT_<SERVICE>_STREAM_MS` (a stream's chunks spread evenly over that long) and
 * `FAULT_<SERVICE>_TASK_MS` (an async task takes that long), SERVICE one of SEARCH, OUTLINE,
 * WRITING, EDITING.
 */
const SERVICE_KNOBS = { LATENCY: 'latencyMs', STREAM: 'streamMs', TASK: 'taskMs' } as const;
const serviceKnobName = (service: ToolServiceKey, knob: keyof typeof SERVICE_KNOBS) => `FAULT_${service.toUpperCase()}_${knob}_MS`;
const perService = Object.fromEntries(
  TOOL_SERVICE_KEYS.flatMap((service) => Object.keys(SERVICE_KNOBS).map((knob) => [serviceKnobName(service, knob as keyof typeof SERVICE_KNOBS), ms.optional()])),
) as Record<string, z.ZodOptional<typeof ms>>;

export const ToolServicesEnv = z.object({
  HOST: z.string().default('127.0.0.1'),
  SEARCH_SERVICE_PORT: port.default(DEFAULT_TOOL_SERVICES.search.port),
  OUTLINE_SERVICE_PORT: port.default(DEFAULT_TOOL_SERVICES.outline.port),
  WRITING_SERVICE_PORT: port.default(DEFAULT_TOOL_SERVICES.writing.port),
  EDITING_SERVICE_PORT: port.default(DEFAULT_TOOL_SERVICES.editing.port),
  /** Port of the offline OpenAI-compatible model (`/v1/chat/completions`). Default 8105. */
  MODEL_SERVICE_PORT: port.default(8105),
  /** Keys callers must present; empty leaves the services open (local use). */
  TOOL_SERVICE_API_KEYS: commaList.default([]),
  /** OpenAI-compatible endpoint (e.g. http://127.0.0.1:11434/v1); unset means the offline author. */
  LLM_BASE_URL: z.url().optional(),
  LLM_MODEL: z.string().min(1).default('gpt-4o-mini'),
  LLM_API_KEY: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(LogLevel).default('info'),
  FAULT_LATENCY_MS: z.coerce.number().int().min(0).default(0),
  FAULT_FAILURE_RATE: z.coerce.number().min(0).max(1).default(0),
  FAULT_FAILURE_STATUS: z.coerce.number().pipe(z.union([z.literal(500), z.literal(503), z.literal(429)])).default(503),
  FAULT_STREAM_CUT_AFTER: z.coerce.number().int().positive().optional(),
  FAULT_STREAM_CUT_RATE: z.coerce.number().min(0).max(1).default(0),
  FAULT_ASYNC_POLLS: z.coerce.number().int().min(0).default(0),
  /** Offline model: ms before each completion answers (default 0). */
  FAULT_MODEL_LATENCY_MS: ms.default(0),
  /** Offline model: ms between streamed chunks (default 0). */
  FAULT_MODEL_TOKEN_DELAY_MS: ms.default(0),
  /** Offline model: share of completions that fail, 0-1 (default 0). */
  FAULT_MODEL_FAILURE_RATE: z.coerce.number().min(0).max(1).default(0),
  /** Offline model: status of those failures, 429 or 500 (default 429). */
  FAULT_MODEL_FAILURE_STATUS: z.coerce.number().pipe(z.union([z.literal(429), z.literal(500)])).default(429),
  /** Offline model: wait a 429 asks for, in ms, as Retry-After and retry-after-ms (default 0: none). */
  FAULT_MODEL_RETRY_AFTER_MS: ms.default(0),
  /** Offline model: a provider's rate limit, `N/MS` (at most N requests per fixed window of MS ms, the rest 429 with Retry-After); default none. */
  FAULT_MODEL_RATE_LIMIT: z
    .string()
    .regex(/^[1-9]\d{0,5}\/[1-9]\d{0,7}$/, 'expected N/MS, e.g. 10/5000')
    .transform((text) => {
      const [requests, windowMs] = text.split('/').map(Number) as [number, number];
      return { requests, windowMs };
    })
    .optional(),
  /** How long a finished async task stays readable at `GET /tasks/{id}`, in ms (default 1 h). Each holds its result in memory meanwhile. */
  TASK_RETENTION_MS: z.coerce.number().int().min(1000).default(3_600_000),
  /**
   * How long a finished task stays readable once a poll has read its result, in ms (default
   * 60 s): enough for a poll whose answer was lost to ask again, short enough that memory follows
   * the rate tasks finish at.
   */
  TASK_READ_RETENTION_MS: z.coerce.number().int().min(1000).default(60_000),
  /** Finished tasks a service keeps at most, read or not; past it the oldest are dropped (default 10,000). */
  TASK_MAX_FINISHED: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  ...perService,
  ...telemetryEnvShape,
});
export type ToolServicesEnv = z.infer<typeof ToolServicesEnv>;

export function loadEnv(source: Record<string, string | undefined> = process.env): ToolServicesEnv {
  return load({ service: 'tool-services', schema: ToolServicesEnv, source });
}

/** The per-service knobs that are set, by service (see SERVICE_KNOBS). */
export function serviceFaults(env: ToolServicesEnv): Record<ToolServiceKey, Partial<FaultKnobs>> {
  const values = env as ToolServicesEnv & Record<string, number | undefined>;
  const knobsOf = (service: ToolServiceKey): Partial<FaultKnobs> => {
    const knobs: Partial<FaultKnobs> = {};
    for (const [knob, field] of Object.entries(SERVICE_KNOBS)) {
      const value = values[serviceKnobName(service, knob as keyof typeof SERVICE_KNOBS)];
      if (value !== undefined) knobs[field] = value;
    }
    return knobs;
  };
  return { search: knobsOf('search'), outline: knobsOf('outline'), writing: knobsOf('writing'), editing: knobsOf('editing') };
}
