/**
 * What a stage needs from the tool services, as one interface: the workers' processors call it,
 * the HTTP implementation goes through the resilient tool client, and benchmarks or tests may
 * pass an in-process one.
 */
import type { OutlineOutput, PolishOutput, SearchOutput, StoryToolIo, ToolServicesConfig, WriteSectionOutput } from '@switchyard/contracts';
import { callStoryTool, createStoryToolClients, type RemoteTask, type StoryToolClients, type ToolClientOptions } from '@switchyard/tool-client';

export interface StageCall {
  signal: AbortSignal;
  /** Streamed content, chunk by chunk (stream mode). */
  onChunk?: (chunk: string) => void;
  /** A stream broke and starts over: drop the chunks seen so far. */
  onReset?: () => void;
  /** An async call was accepted: record the task to resume it after a crash. */
  onTaskAccepted?: (task: RemoteTask) => Promise<void>;
  /** Poll this task instead of starting the work again. */
  resumeTask?: RemoteTask | undefined;
}

export interface StoryTools {
  search(args: StoryToolIo['search_relevant_information']['input'], call: StageCall): Promise<SearchOutput>;
  outline(args: StoryToolIo['generate_structured_outline']['input'], call: StageCall): Promise<OutlineOutput>;
  writeSection(args: StoryToolIo['write_story_section']['input'], call: StageCall): Promise<WriteSectionOutput>;
  polish(args: StoryToolIo['polish_story']['input'], call: StageCall): Promise<PolishOutput>;
  /** Releases what the tools hold (none for HTTP). */
  close?(): Promise<void>;
}

/** The story tools over HTTP, each service called in its configured mode (sync, async or stream). */
export function createHttpStoryTools(config: ToolServicesConfig, clientOverrides: Partial<Omit<ToolClientOptions, 'service' | 'baseUrl'>> = {}): StoryTools & { clients: StoryToolClients } {
  const clients = createStoryToolClients(config, clientOverrides);
  const mode = (key: keyof StoryToolClients) => ({ mode: config.services[key].mode });
  return {
    clients,
    search: (args, call) => callStoryTool(clients.search, 'search_relevant_information', args, { ...mode('search'), ...call }),
    outline: (args, call) => callStoryTool(clients.outline, 'generate_structured_outline', args, { ...mode('outline'), ...call }),
    writeSection: (args, call) => callStoryTool(clients.writing, 'write_story_section', args, { ...mode('writing'), ...call }),
    polish: (args, call) => callStoryTool(clients.editing, 'polish_story', args, { ...mode('editing'), ...call }),
  };
}
