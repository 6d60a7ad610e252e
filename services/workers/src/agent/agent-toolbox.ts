/**
 * An agent's tools as its model sees them (name, description, JSON Schema of the arguments) and
 * as its calls check them: a tool of a configured service (its GET /tools listing), a registered
 * pipeline (its input schema) or a tool of a configured MCP server (its listing). The arguments a
 * model writes are untrusted: each call's are parsed and checked against the tool's schema before
 * any job is made for it (ToolArgumentChecker: bounded schemas, patterns by RE2).
 */
import type { McpToolSource } from '@switchyard/mcp-tools';
import { ToolArgumentChecker, type AgentToolTarget, type CompiledAgent, type PipelineStore } from '@switchyard/pipeline';
import type { StepTools } from '../tools.js';
import type { ModelTool as ModelToolSpec } from '@switchyard/models';

export interface AgentToolboxDeps {
  tools: StepTools;
  mcp: ReadonlyMap<string, McpToolSource>;
  pipelines: PipelineStore;
}

const ANY_OBJECT = { type: 'object' } as const;

export class AgentToolbox {
  readonly #deps: AgentToolboxDeps;
  readonly #checker = new ToolArgumentChecker();

  constructor(deps: AgentToolboxDeps) {
    this.#deps = deps;
  }

  /** Every tool of the agent as the model is told of it; a tool that cannot be found now is left out, with the reason. */
  async specs(agent: CompiledAgent): Promise<{ specs: ModelToolSpec[]; missing: { name: string; reason: string }[] }> {
    const found = await Promise.all([...agent.tools.values()].map(async (tool) => ({ tool, spec: await this.spec(tool).catch((error: unknown) => (error instanceof Error ? error.message : String(error))) })));
    return {
      specs: found.flatMap(({ spec }) => (typeof spec === 'string' ? [] : [spec])),
      missing: found.flatMap(({ tool, spec }) => (typeof spec === 'string' ? [{ name: tool.name, reason: spec }] : [])),
    };
  }

  async spec(tool: AgentToolTarget): Promise<ModelToolSpec> {
    if (tool.kind === 'service') {
      const descriptor = await this.#deps.tools.describe?.(tool.service, tool.tool);
      if (this.#deps.tools.describe && !descriptor) throw new Error(`service ${tool.service} no longer publishes tool ${tool.tool}`);
      return { name: tool.name, description: tool.description ?? descriptor?.description ?? '', parameters: descriptor?.inputSchema ?? ANY_OBJECT };
    }
    if (tool.kind === 'mcp') {
      const source = this.#deps.mcp.get(tool.server);
      if (!source) throw new Error(`no MCP server ${tool.server} is configured in this worker (MCP_SERVERS)`);
      // Not listed (the server was down at start, or has new tools): listed again once.
      let listed = source.tools().find((t) => t.name === tool.tool);
      if (!listed) {
        await source.refresh(AbortSignal.timeout(10_000));
        listed = source.tools().find((t) => t.name === tool.tool);
      }
      if (!listed) throw new Error(`MCP server ${tool.server} does not list tool ${tool.tool}`);
      return { name: tool.name, description: tool.description ?? listed.description ?? '', parameters: listed.inputSchema };
    }
    const stored = await this.#deps.pipelines.compiled(tool.pipeline, tool.version);
    if (!stored) throw new Error(`no pipeline ${tool.pipeline}${tool.version ? ` version ${tool.version}` : ''} is registered`);
    const definition = stored.stored.definition;
    return { name: tool.name, description: tool.description ?? (definition.description || `Runs pipeline ${definition.name} and answers with its result`), parameters: definition.input };
  }

  /** What is wrong with `args` for `spec` (empty: they fit). */
  problems(spec: ModelToolSpec, args: unknown): string[] {
    return this.#checker.problems(spec.parameters, args);
  }
}
