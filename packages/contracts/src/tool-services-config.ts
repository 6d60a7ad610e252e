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

/** zod shape of the tool-service variables, to spread into a service's env schema. */
export const toolServicesEnvShape = {
  ...serviceShape('search'),
  ...serviceShape('outline'),
  ...serviceShape('writing'),
  ...serviceShape('editing'),
  TOOL_SERVICE_API_KEY: z.string().min(1).optional(),
};

export interface ToolServiceConfig {
  key: ToolServiceKey;
  tool: StoryToolName;
  url: string;
  mode: ToolCallMode;
  timeoutMs: number;
}

export interface ToolServicesConfig {
  services: Record<ToolServiceKey, ToolServiceConfig>;
  apiKey: string | undefined;
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
  return {
    services: { search: one('search'), outline: one('outline'), writing: one('writing'), editing: one('editing') },
    apiKey: env.TOOL_SERVICE_API_KEY,
  };
}

/** Parses tool-service variables from `source` (throws a ZodError on bad values). */
export function parseToolServicesEnv(source: Record<string, string | undefined>): ToolServicesConfig {
  return toolServicesFromEnv(z.object(toolServicesEnvShape).parse(source));
}
