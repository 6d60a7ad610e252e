/**
 * Where the four story tool services live and how to call them. The variables are shared by
 * every service that talks to them; each service's env.ts spreads `toolServicesEnvShape` into
 * its own schema, so a bad value stops start-up with the variable's name.
 */
import { z } from 'zod';
import type { StoryToolName } from './story-tools.js';

export const ToolServiceKey = z.enum(['search', 'outline', 'writing', 'editing']);
export type ToolServiceKey = z.infer<typeof ToolServiceKey>;
export const TOOL_SERVICE_KEYS: readonly ToolServiceKey[] = ToolServiceKey.options;

export const ToolCallMode = z.enum(['sync', 'async', 'stream']);
export type ToolCallMode = z.infer<typeof ToolCallMode>;

interface ServiceDefaults {
  tool: StoryToolName;
  mode: ToolCallMode;
  timeoutMs: number;
  port: number;
}

/** Defaults per service: the tool it hosts, call mode, per-attempt timeout, local port. */
export const DEFAULT_TOOL_SERVICES: Readonly<Record<ToolServiceKey, ServiceDefaults>> = {
  search: { tool: 'search_relevant_information', mode: 'sync', timeoutMs: 15_000, port: 8101 },
  outline: { tool: 'generate_structured_outline', mode: 'sync', timeoutMs: 30_000, port: 8102 },
  writing: { tool: 'write_story_section', mode: 'stream', timeoutMs: 60_000, port: 8103 },
  editing: { tool: 'polish_story', mode: 'async', timeoutMs: 90_000, port: 8104 },
};

const httpUrl = z
  .url({ protocol: /^https?$/ })
  .transform((u) => u.replace(/\/+$/, ''));

function serviceShape(key: ToolServiceKey) {
  const d = DEFAULT_TOOL_SERVICES[key];
  const prefix = key.toUpperCase();
  return {
    [`${prefix}_SERVICE_URL`]: httpUrl.default(`http://127.0.0.1:${d.port}`),
    [`${prefix}_SERVICE_MODE`]: ToolCallMode.default(d.mode),
    [`${prefix}_SERVICE_TIMEOUT_MS`]: z.coerce.number().int().positive().max(3_600_000).default(d.timeoutMs),
  };
}

/** A service name: it names queues (`tool-<name>`) and appears in errors. */
export const SERVICE_NAME = /^[a-z][a-z0-9-]{0,39}$/;

const ExtraService = z.union([
  httpUrl.transform((url) => ({ url, mode: 'sync' as const, timeout_ms: 30_000 })),
  z.strictObject({
    url: httpUrl,
    mode: ToolCallMode.default('sync'),
    timeout_ms: z.number().int().positive().max(3_600_000).default(30_000),
    /** Calls a minute the service admits, one budget for every worker (BullMQ's limiter of its queue). */
    requests_per_minute: z.number().int().positive().max(1_000_000).optional(),
  }),
]);

/**
 * More tool services for pipelines users define, beside the four story services: a JSON object of
 * name → URL, or name → {url, mode, timeout_ms, requests_per_minute}, e.g. `{"reviewer":"http://127.0.0.1:9001"}`.
 */
const extraServices = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'expected a JSON object of service name → URL or {url, mode, timeout_ms}' });
      return z.NEVER;
    }
  })
  .pipe(
    z.record(z.string().regex(SERVICE_NAME, 'a service name is lower-case letters, digits and -').refine((name) => !(TOOL_SERVICE_KEYS as readonly string[]).includes(name), 'this name is one of the four story services'), ExtraService),
  );

/** zod shape of the tool-service variables, to spread into a service's env schema. */
export const toolServicesEnvShape = {
  ...serviceShape('search'),
  ...serviceShape('outline'),
  ...serviceShape('writing'),
  ...serviceShape('editing'),
  TOOL_SERVICES: extraServices.optional(),
  TOOL_SERVICE_API_KEY: z.string().min(1).optional(),
};

export interface ToolServiceConfig {
  key: ToolServiceKey;
  tool: StoryToolName;
  url: string;
  mode: ToolCallMode;
  timeoutMs: number;
}

/** A tool service as pipelines call it: any configured service, the story ones included. */
export interface PipelineToolService {
  name: string;
  url: string;
  mode: ToolCallMode;
  timeoutMs: number;
  /** Calls a minute the service admits (TOOL_SERVICES' `requests_per_minute`), shared by every worker; absent: none declared. */
  requestsPerMinute?: number;
}

export interface ToolServicesConfig {
  services: Record<ToolServiceKey, ToolServiceConfig>;
  /** Services beyond the four story ones (TOOL_SERVICES). */
  extra: Record<string, PipelineToolService>;
  apiKey: string | undefined;
}

/** Every configured service, the story ones first. */
export function pipelineToolServices(config: ToolServicesConfig): PipelineToolService[] {
  const story = TOOL_SERVICE_KEYS.map((key) => ({ name: key, url: config.services[key].url, mode: config.services[key].mode, timeoutMs: config.services[key].timeoutMs }));
  return [...story, ...Object.values(config.extra)];
}

type ParsedToolEnv = z.infer<z.ZodObject<typeof toolServicesEnvShape>>;

/** Turns parsed variables into one config per service. */
export function toolServicesFromEnv(env: ParsedToolEnv): ToolServicesConfig {
  const one = (key: ToolServiceKey): ToolServiceConfig => {
    const prefix = key.toUpperCase();
    const read = (suffix: string) => (env as Record<string, unknown>)[`${prefix}_SERVICE_${suffix}`];
    return {
      key,
      tool: DEFAULT_TOOL_SERVICES[key].tool,
      url: String(read('URL')),
      mode: ToolCallMode.parse(read('MODE')),
      timeoutMs: Number(read('TIMEOUT_MS')),
    };
  };
  const extra = Object.fromEntries(
    Object.entries(env.TOOL_SERVICES ?? {}).map(([name, s]) => [name, { name, url: s.url, mode: s.mode, timeoutMs: s.timeout_ms, ...('requests_per_minute' in s && s.requests_per_minute !== undefined ? { requestsPerMinute: s.requests_per_minute } : {}) }]),
  );
  return {
    services: { search: one('search'), outline: one('outline'), writing: one('writing'), editing: one('editing') },
    extra,
    apiKey: env.TOOL_SERVICE_API_KEY,
  };
}

/** Parses tool-service variables from `source` (throws a ZodError on bad values). */
export function parseToolServicesEnv(source: Record<string, string | undefined>): ToolServicesConfig {
  return toolServicesFromEnv(z.object(toolServicesEnvShape).parse(source));
}
