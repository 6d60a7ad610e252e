/**
 * Clients for the four story services, built from the shared configuration, and a typed call
 * per story tool.
 */
import { TOOL_SERVICE_KEYS, type StoryToolIo, type StoryToolName, type ToolServiceKey, type ToolServicesConfig } from '@switchyard/contracts';
import { ToolServiceClient, type ToolCallOptions, type ToolClientOptions } from './client.js';

export type StoryToolClients = Record<ToolServiceKey, ToolServiceClient>;

/** One client per service; `overrides` applies to all (e.g. retry or breaker settings in tests). */
export function createStoryToolClients(config: ToolServicesConfig, overrides: Partial<Omit<ToolClientOptions, 'service' | 'baseUrl'>> = {}): StoryToolClients {
  const build = (key: ToolServiceKey) => {
    const service = config.services[key];
    return new ToolServiceClient({ timeoutMs: service.timeoutMs, apiKey: config.apiKey, ...overrides, service: key, baseUrl: service.url });
  };
  return Object.fromEntries(TOOL_SERVICE_KEYS.map((key) => [key, build(key)])) as StoryToolClients;
}

/** Calls a story tool with typed arguments; the output has been checked against its schema. */
export async function callStoryTool<T extends StoryToolName>(
  client: ToolServiceClient,
  tool: T,
  args: StoryToolIo[T]['input'],
  options: Omit<ToolCallOptions, 'tool' | 'args'> = {},
): Promise<StoryToolIo[T]['output']> {
  return (await client.call({ ...options, tool, args: args as Record<string, unknown> })) as StoryToolIo[T]['output'];
}
