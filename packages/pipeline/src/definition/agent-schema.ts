/**
 * The `agent` step kind's format: a model that chooses which of its tools to call, turn after
 * turn, until it answers. Its instructions and prompt are expressions, like `args`; each tool is a
 * tool of a configured service, a registered pipeline (a call is a child run) or a tool of a
 * configured MCP server.
 */
import { z } from 'zod';
import { DEFAULT_AGENT_TOKENS, DEFAULT_AGENT_TURNS, MAX_AGENT_TOKENS, MAX_AGENT_TOOLS, MAX_AGENT_TURNS, MAX_EXPRESSION_CHARS, MAX_VERSION } from './limits.js';

const Expression = z.string().min(1).max(MAX_EXPRESSION_CHARS).describe('A JSONata expression');
const Name = z.string().min(1).max(200);
const Description = z.string().max(1000).optional().describe("What the model is told the tool does (default: the tool's own description)");
const Approval = z
  .union([z.literal('required'), Expression])
  .optional()
  .describe("`required`: each call waits for a person's approval (POST /v1/runs/{id}/approvals/{call_id}); or an expression over the call's `arguments` (and `input`, `steps`) that says whether this call needs one");

export const AgentToolDefinition = z.union([
  Name.describe('A tool published on GET /tools by a configured tool service'),
  z.strictObject({ tool: Name, service: z.string().min(1).max(60).optional().describe('The service publishing `tool`, when more than one does'), description: Description, approval: Approval }),
  z.strictObject({
    pipeline: z.string().min(1).max(60).describe('A registered pipeline: each call is a child run, its input the arguments'),
    version: z.number().int().positive().max(MAX_VERSION).optional().describe('Default: the latest when the step runs'),
    description: Description,
    approval: Approval,
  }),
  z.strictObject({ mcp: z.string().min(1).max(60).describe('A server named in MCP_SERVERS'), tool: Name, description: Description, approval: Approval }),
]);
export type AgentToolDefinition = z.output<typeof AgentToolDefinition>;

export const AgentDefinition = z.strictObject({
  model: z.string().min(1).max(60).default('default').describe('A configured model: `default` (LLM_MODEL) or a name in MODELS'),
  instructions: Expression.optional().describe('The system message, as an expression'),
  prompt: Expression.describe('The first user message, as an expression'),
  tools: z.array(AgentToolDefinition).max(MAX_AGENT_TOOLS).default([]).describe('What the model may call'),
  max_turns: z.number().int().min(1).max(MAX_AGENT_TURNS).default(DEFAULT_AGENT_TURNS).describe('Model turns at most; past them the step fails with agent_turns_exceeded'),
  max_tokens: z.number().int().min(1).max(MAX_AGENT_TOKENS).default(DEFAULT_AGENT_TOKENS).describe('Prompt and completion tokens over the step at most; past them it fails with agent_tokens_exceeded'),
  max_cost: z.number().positive().max(1_000_000).optional().describe("USD the step's model turns may cost at most, by the model's prices in MODELS; past it the step fails with agent_cost_exceeded"),
  output_schema: z.record(z.string(), z.unknown()).optional().describe("JSON Schema of the answer: the answer is parsed as JSON and checked; one that does not fit goes back to the model once with the errors, then fails the step with invalid_output"),
});
export type AgentDefinition = z.output<typeof AgentDefinition>;

/** OpenAI's rule for a function's name. */
const MODEL_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The name the model calls a tool by: the tool's own, or `pipeline_<name>` for a pipeline. */
export function modelToolName(tool: AgentToolDefinition): string {
  if (typeof tool === 'string') return tool;
  if ('pipeline' in tool) return `pipeline_${tool.pipeline}`;
  return tool.tool;
}

/** The tools' names clash, or one cannot be a model's function name: the problems, by place. */
export function agentToolNameProblems(tools: readonly AgentToolDefinition[], place: string): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const seen = new Map<string, number>();
  tools.forEach((tool, i) => {
    const name = modelToolName(tool);
    if (!MODEL_TOOL_NAME.test(name)) problems.push({ path: `${place}.${i}`, message: `a model calls tools by names of letters, digits, _ and - (at most 64): ${JSON.stringify(name.slice(0, 80))} is not one` });
    const first = seen.get(name);
    if (first !== undefined) problems.push({ path: `${place}.${i}`, message: `tool ${name} is offered twice (also at ${place}.${first})` });
    else seen.set(name, i);
  });
  return problems;
}

/** A tool of a configured tool service (given by name, or as `{ tool, service? }`), not a pipeline or an MCP tool. */
export function isServiceTool(tool: AgentToolDefinition): tool is string | { tool: string; service?: string | undefined; description?: string | undefined; approval?: string | undefined } {
  return typeof tool === 'string' || (!('pipeline' in tool) && !('mcp' in tool));
}
