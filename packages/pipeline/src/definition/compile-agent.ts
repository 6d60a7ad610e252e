/**
 * An agent step made ready to run: its instructions and prompt compiled as expressions, each of
 * its tools resolved to what a call of it does, and its `output_schema` as a validator.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { agentToolNameProblems, modelToolName, type AgentDefinition } from './agent-schema.js';
import { compileExpression, ExpressionError, type Expression } from './expressions.js';
import { compileInputSchema, inputProblems } from './input-schema.js';
import type { DefinitionProblem } from './problems.js';
import type { StepDefinition } from './schema.js';

/** A tool as an agent step resolved it: what it is, and the name the model calls it by. */
export type AgentToolTarget = (
  | { kind: 'service'; name: string; service: string; tool: string; description?: string | undefined }
  | { kind: 'pipeline'; name: string; pipeline: string; version?: number | undefined; description?: string | undefined }
  | { kind: 'mcp'; name: string; server: string; tool: string; description?: string | undefined }
) & {
  /** Whether a call waits for a person: always, or when this expression over `arguments` is true. */
  approval?: 'required' | Expression | undefined;
};

export interface CompiledAgent {
  definition: AgentDefinition;
  instructions?: Expression | undefined;
  prompt: Expression;
  /** By the name the model calls each by. */
  tools: ReadonlyMap<string, AgentToolTarget>;
  /** What is wrong with an answer, by field (none: it fits, or there is no `output_schema`). */
  outputProblems(answer: unknown): DefinitionProblem[];
}

/** The service of an agent's tool given as a name: its own `service`, or the one registration found. */
export const agentToolServiceKey = (step: string, index: number) => `${step}.tools.${index}`;

function resolveTools(options: { name: string; agent: AgentDefinition; services: Record<string, string>; problems: DefinitionProblem[]; compile: (source: string | undefined, field: string) => Expression | undefined }): Map<string, AgentToolTarget> {
  const { name, agent, problems } = options;
  const tools = new Map<string, AgentToolTarget>();
  agent.tools.forEach((tool, index) => {
    const toolName = modelToolName(tool);
    const approvalText = typeof tool === 'object' ? tool.approval : undefined;
    const approval = approvalText === 'required' ? 'required' : options.compile(approvalText, `tools.${index}.approval`);
    const set = (target: AgentToolTarget) => tools.set(toolName, approval ? { ...target, approval } : target);
    if (typeof tool === 'object' && 'pipeline' in tool) {
      set({ kind: 'pipeline', name: toolName, pipeline: tool.pipeline, version: tool.version, description: tool.description });
    } else if (typeof tool === 'object' && 'mcp' in tool) {
      set({ kind: 'mcp', name: toolName, server: tool.mcp, tool: tool.tool, description: tool.description });
    } else {
      const service = (typeof tool === 'object' ? tool.service : undefined) ?? options.services[agentToolServiceKey(name, index)];
      if (!service) {
        problems.push({ path: `steps.${name}.agent.tools.${index}`, message: `no service was found for tool ${toolName}` });
        return;
      }
      set({ kind: 'service', name: toolName, service, tool: toolName, description: typeof tool === 'object' ? tool.description : undefined });
    }
  });
  return tools;
}

/** Compiles an agent step; its problems are added to `problems` (and nothing returned when it cannot run). */
export function compileAgent(options: { name: string; step: StepDefinition; agent: AgentDefinition; services: Record<string, string>; problems: DefinitionProblem[] }): CompiledAgent | undefined {
  const { name, step, agent, problems } = options;
  const place = `steps.${name}.agent`;
  const before = problems.length;
  problems.push(...agentToolNameProblems(agent.tools, `${place}.tools`));
  const budget = { timeoutMs: step.expression_timeout };
  const compile = (source: string | undefined, field: string): Expression | undefined => {
    if (source === undefined) return undefined;
    try {
      return compileExpression(source, `${place}.${field}`, budget);
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      problems.push({ path: error.place, message: error.message.slice(error.place.length + 2) });
      return undefined;
    }
  };
  const instructions = compile(agent.instructions, 'instructions');
  const prompt = compile(agent.prompt, 'prompt');
  const tools = resolveTools({ name, agent, services: options.services, problems, compile });
  let validate: ValidateFunction | undefined;
  if (agent.output_schema) {
    const compiled = compileInputSchema(agent.output_schema, `${place}.output_schema`);
    if ('problems' in compiled) problems.push(...compiled.problems);
    else validate = compiled.validate;
  }
  if (problems.length > before || !prompt) return undefined;
  return {
    definition: agent,
    instructions,
    prompt,
    tools,
    outputProblems: (answer) => (validate ? inputProblems(validate, answer, '(answer)') : []),
  };
}
