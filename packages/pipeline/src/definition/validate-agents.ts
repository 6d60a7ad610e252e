/**
 * Registration's checks of agent steps beyond their format: each tool of a service is published
 * by one configured service (found as a tool step's is), each pipeline is registered, each MCP
 * server and the model are configured. Definitions shipped with the code are checked without a
 * directory: their tools name their service, and the rest is found when the step runs.
 */
import type { ToolDescriptor } from '@switchyard/contracts';
import { isServiceTool } from './agent-schema.js';
import { agentToolServiceKey } from './compile-agent.js';
import type { DefinitionProblem } from './problems.js';
import type { StepDefinition } from './schema.js';

/** What registration needs to know about an agent's model and non-service tools. */
export interface AgentDirectory {
  /** The configured model names (`default` and those of MODELS). */
  models(): readonly string[];
  /** The configured MCP servers' names (MCP_SERVERS). */
  mcpServers(): readonly string[];
  /** Whether pipeline `name` is registered (in `version`, when given). */
  hasPipeline(name: string, version?: number): Promise<boolean>;
  /** The input schema of pipeline `name` (in `version`, when given); null when it is not registered. */
  pipelineInput(name: string, version?: number): Promise<Record<string, unknown> | null>;
  /**
   * The tools configured MCP server `server` lists now; undefined when it cannot be asked (its
   * tools are then checked when called). Absent: MCP tools are checked when called.
   */
  mcpTools?(server: string): Promise<readonly string[] | undefined>;
}

interface FoundTool {
  service: string;
  descriptor: ToolDescriptor;
}

/** The service of each agent tool given by name; a problem for each that is unknown or published twice. */
export function resolveAgentServiceTools(steps: Record<string, StepDefinition>, found: readonly FoundTool[], problems: DefinitionProblem[]): Record<string, string> {
  const services: Record<string, string> = {};
  for (const [name, step] of Object.entries(steps)) {
    step.agent?.tools.forEach((tool, index) => {
      if (!isServiceTool(tool)) return;
      const wanted = typeof tool === 'string' ? { tool } : tool;
      const candidates = found.filter((t) => t.descriptor.name === wanted.tool && (!wanted.service || t.service === wanted.service));
      const path = `steps.${name}.agent.tools.${index}`;
      if (candidates.length === 1) services[agentToolServiceKey(name, index)] = (candidates[0] as FoundTool).service;
      else if (candidates.length > 1) problems.push({ path, message: `tool ${wanted.tool} is published by ${candidates.map((c) => c.service).join(' and ')}: say which with \`{ tool: ${wanted.tool}, service: … }\`` });
      else problems.push({ path, message: `unknown tool ${wanted.tool}: no configured service publishes it${wanted.service ? ` (looked in ${wanted.service})` : ''}; known tools: ${[...new Set(found.map((t) => t.descriptor.name))].sort().join(', ') || 'none'}` });
    });
  }
  return services;
}

/** Problems of the agents' models, pipelines and MCP servers, against what is configured and registered. */
export async function agentDirectoryProblems(steps: Record<string, StepDefinition>, directory: AgentDirectory | undefined, shipped: boolean): Promise<DefinitionProblem[]> {
  const problems: DefinitionProblem[] = [];
  // Each server asked once per registration, however many steps name its tools.
  const listed = new Map<string, Promise<readonly string[] | undefined>>();
  const toolsOf = (server: string) => {
    if (!directory?.mcpTools) return Promise.resolve(undefined);
    let tools = listed.get(server);
    if (!tools) listed.set(server, (tools = directory.mcpTools(server)));
    return tools;
  };
  for (const [name, step] of Object.entries(steps)) {
    const agent = step.agent;
    if (!agent) continue;
    const place = `steps.${name}.agent`;
    if (directory && !directory.models().includes(agent.model)) problems.push({ path: `${place}.model`, message: `no model ${agent.model} is configured (configured: ${directory.models().join(', ') || 'none'}; see LLM_MODEL and MODELS)` });
    for (const [index, tool] of agent.tools.entries()) {
      const path = `${place}.tools.${index}`;
      if (shipped && isServiceTool(tool) && (typeof tool === 'string' || !tool.service)) problems.push({ path, message: 'a shipped definition names the service of each tool: { tool: …, service: … }' });
      if (!directory || typeof tool === 'string') continue;
      if ('mcp' in tool && !directory.mcpServers().includes(tool.mcp)) problems.push({ path: `${path}.mcp`, message: `no MCP server ${tool.mcp} is configured (configured: ${directory.mcpServers().join(', ') || 'none'}; see MCP_SERVERS)` });
      else if ('mcp' in tool) problems.push(...mcpToolProblems(tool, path, await toolsOf(tool.mcp)));
      if ('pipeline' in tool && !(await directory.hasPipeline(tool.pipeline, tool.version))) problems.push({ path: `${path}.pipeline`, message: `no pipeline ${tool.pipeline}${tool.version ? ` version ${tool.version}` : ''} is registered` });
    }
  }
  return problems;
}

/** A tool its MCP server does not list, when the server could be asked. */
function mcpToolProblems(tool: { mcp: string; tool: string }, path: string, listed: readonly string[] | undefined): DefinitionProblem[] {
  if (!listed || listed.includes(tool.tool)) return [];
  const shown = listed.length > 20 ? `${[...listed].sort().slice(0, 20).join(', ')}, …` : [...listed].sort().join(', ') || 'none';
  return [{ path: `${path}.tool`, message: `MCP server ${tool.mcp} lists no tool ${tool.tool} (it lists: ${shown})` }];
}
