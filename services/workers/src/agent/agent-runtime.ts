/**
 * What a worker process needs to run agent steps, made once at its start: the models, the MCP
 * servers as tool sources, the transcripts on the run store's connection, and the toolbox that
 * describes and checks tools.
 */
import type { McpToolSource } from '@switchyard/mcp-tools';
import { AgentTranscripts, type PipelineQueues, type PipelineStore, type RunStore } from '@switchyard/pipeline';
import type { StepTools } from '../tools.js';
import { AgentToolbox } from './agent-toolbox.js';
import type { AgentMetrics } from './agent-metrics.js';
import type { AgentModels } from './model-port.js';

export interface AgentRuntime {
  models: AgentModels;
  mcp: ReadonlyMap<string, McpToolSource>;
  transcripts: AgentTranscripts;
  toolbox: AgentToolbox;
  /** Where a pipeline call starts its child run. */
  queues: PipelineQueues;
  metrics?: AgentMetrics | undefined;
}

export function createAgentRuntime(options: { store: RunStore; pipelines: PipelineStore; queues: PipelineQueues; tools: StepTools; models: AgentModels; mcp?: ReadonlyMap<string, McpToolSource>; metrics?: AgentMetrics | undefined }): AgentRuntime {
  const mcp = options.mcp ?? new Map<string, McpToolSource>();
  return {
    models: options.models,
    mcp,
    transcripts: new AgentTranscripts(options.store.redis),
    toolbox: new AgentToolbox({ tools: options.tools, mcp, pipelines: options.pipelines }),
    queues: options.queues,
    metrics: options.metrics,
  };
}
