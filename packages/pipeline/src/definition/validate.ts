/**
 * Validation at registration: the format, the graph (unknown needs, cycles), each tool against
 * what the configured services publish on `GET /tools`, each step kind against those registered
 * in code, arguments against the tool's inputSchema where that can be known before running, and
 * every expression. Every problem is listed, each naming its place.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { z } from 'zod';
import type { ToolDescriptor } from '@switchyard/contracts';
import { compilePipeline, type StoredPipeline } from './compile.js';
import { valueBoundsProblem } from './document-bounds.js';
import { linearRegExpEngine } from './linear-regex.js';
import { DefinitionError, type DefinitionProblem } from './problems.js';
import { schemaProblems } from './schema-bounds.js';
import { atReplaced, salvageDefinition } from './salvage.js';
import { isServiceTool } from './agent-schema.js';
import { PipelineDefinition, type StepDefinition } from './schema.js';
import { childPipelineProblems } from './validate-children.js';
import { agentDirectoryProblems, resolveAgentServiceTools, type AgentDirectory } from './validate-agents.js';

/** What registration needs to know of the tool services. */
export interface ToolDirectory {
  /** The configured services' names. */
  services(): readonly string[];
  /** The tools `service` publishes; rejects when the service cannot be reached. */
  tools(service: string): Promise<readonly ToolDescriptor[]>;
}

const pathOf = (path: readonly PropertyKey[]) => path.map(String).join('.') || '(definition)';

/** A format problem as users read it: a missing field says it is required. */
function formatProblem(issue: z.core.$ZodIssue): DefinitionProblem {
  const missing = issue.code === 'invalid_type' && / received undefined$/.test(issue.message);
  return { path: pathOf(issue.path), message: missing ? `required (${issue.expected})` : issue.message };
}

interface FoundTool {
  service: string;
  descriptor: ToolDescriptor;
}

async function findTools(directory: ToolDirectory): Promise<{ found: FoundTool[]; unreachable: Map<string, string> }> {
  const found: FoundTool[] = [];
  const unreachable = new Map<string, string>();
  await Promise.all(
    directory.services().map(async (service) => {
      try {
        for (const descriptor of await directory.tools(service)) found.push({ service, descriptor });
      } catch (error) {
        unreachable.set(service, error instanceof Error ? error.message : String(error));
      }
    }),
  );
  return { found, unreachable };
}

/**
 * The ajv a registration checks literal arguments with: its own, since tools' schemas are new
 * objects each time their listing is fetched again (a shared one would keep every one compiled),
 * with the tools' patterns run by RE2 on what the user wrote.
 */
const literalChecker = () => new Ajv2020({ allErrors: true, strict: false, logger: false, code: { regExp: linearRegExpEngine } });

/** Arguments checked against the tool's inputSchema as far as an args object shows them. */
function argumentProblems(name: string, step: StepDefinition, schema: Record<string, unknown>, ajv: Ajv2020, what = `tool ${step.tool}`): DefinitionProblem[] {
  const place = `steps.${name}.args`;
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  if (typeof step.args === 'string') return []; // one expression: known only when it runs
  const args = (step.args ?? {}) as Record<string, unknown>;
  const problems: DefinitionProblem[] = [];
  for (const field of required) if (!(field in args)) problems.push({ path: place, message: `misses ${field}, which ${what} requires` });
  for (const [field, value] of Object.entries(args)) {
    const property = properties[field];
    if (!property) {
      if (schema.additionalProperties === false) problems.push({ path: `${place}.${field}`, message: `${what} takes no argument ${field} (it takes ${Object.keys(properties).join(', ') || 'none'})` });
      continue;
    }
    // A string is an expression, known when the step runs; any other value is given as it is.
    if (typeof value === 'string' || (value && typeof value === 'object' && !Array.isArray(value))) continue;
    try {
      const validate = ajv.compile(property);
      if (!validate(value)) problems.push({ path: `${place}.${field}`, message: `${JSON.stringify(value)} does not fit ${what}'s ${step.tool ? 'inputSchema' : 'input schema'}: ${(validate.errors ?? []).map((e) => e.message).join('; ')}` });
    } catch {
      // A schema ajv cannot compile is the service's concern; the call itself will be checked.
    }
  }
  return problems;
}

/** Resolves each tool step's service; collects unknown and ambiguous tools. */
function resolveTools(steps: Record<string, StepDefinition>, tools: { found: FoundTool[]; unreachable: Map<string, string> }, problems: DefinitionProblem[]): Record<string, string> {
  const services: Record<string, string> = {};
  const ajv = literalChecker();
  for (const [name, step] of Object.entries(steps)) {
    if (!step.tool) continue;
    const candidates = tools.found.filter((t) => t.descriptor.name === step.tool && (!step.service || t.service === step.service));
    if (candidates.length === 1) {
      const [only] = candidates as [FoundTool];
      services[name] = only.service;
      problems.push(...argumentProblems(name, step, only.descriptor.inputSchema, ajv));
    } else if (candidates.length > 1) {
      problems.push({ path: `steps.${name}.tool`, message: `tool ${step.tool} is published by ${candidates.map((c) => c.service).join(' and ')}: say which with \`service\`` });
    } else {
      const down = [...tools.unreachable.entries()].map(([service, error]) => `${service} (unreachable: ${error})`);
      const where = step.service ? `service ${step.service} does not publish it` : 'no configured service publishes it';
      const known = [...new Set(tools.found.map((t) => t.descriptor.name))].sort();
      problems.push({ path: `steps.${name}.tool`, message: `unknown tool ${step.tool}: ${where}${down.length > 0 ? `; not reached: ${down.join(', ')}` : ''}; known tools: ${known.join(', ') || 'none'}` });
    }
  }
  return services;
}

/**
 * Validates a definition (already parsed from YAML or JSON) and returns it as it is stored, with
 * `version` given; throws a DefinitionError with every problem: the format's, and, where the
 * format holds, the graph's, the tools' and the expressions' (salvage.ts).
 *
 * @param options.tools the configured services; without it (definitions shipped with the code)
 *   each tool step must name its `service`, and tools are checked when they are called
 */
export async function validateDefinition(options: { raw: unknown; version: number; tools?: ToolDirectory | undefined; agents?: AgentDirectory | undefined; kinds: readonly string[]; now?: string }): Promise<StoredPipeline> {
  // A definition sent as an object (over MCP) has not been through the text's bounds.
  const bounds = valueBoundsProblem(options.raw);
  if (bounds) throw new DefinitionError([bounds]);
  const parsed = PipelineDefinition.safeParse(options.raw);
  if (parsed.success) {
    const { stored, problems } = await checkDefinition({ ...options, definition: parsed.data });
    if (problems.length > 0) throw new DefinitionError(problems);
    return stored;
  }
  const format = parsed.error.issues.slice(0, 50).map(formatProblem);
  const salvaged = salvageDefinition({ raw: options.raw, issues: parsed.error.issues });
  if (!salvaged) throw new DefinitionError(format);
  const { problems } = await checkDefinition({ ...options, definition: salvaged.definition });
  const more = problems.filter((p) => !atReplaced(p.path, salvaged.replaced) && !format.some((f) => f.path === p.path));
  throw new DefinitionError([...format, ...more]);
}

/** Everything but the format: step kinds, services and tools, arguments, the graph, expressions, the input schema. */
async function checkDefinition(options: { definition: PipelineDefinition; version: number; tools?: ToolDirectory | undefined; agents?: AgentDirectory | undefined; kinds: readonly string[]; now?: string }): Promise<{ stored: StoredPipeline; problems: DefinitionProblem[] }> {
  const definition = { ...options.definition, version: options.version };
  const problems: DefinitionProblem[] = [];
  const { tools } = options;
  const services = tools?.services();
  for (const [name, step] of Object.entries(definition.steps)) {
    if (step.uses && !options.kinds.includes(step.uses)) problems.push({ path: `steps.${name}.uses`, message: `unknown step kind ${step.uses} (known: ${options.kinds.join(', ')})` });
    if (step.service && services && !services.includes(step.service)) problems.push({ path: `steps.${name}.service`, message: `no configured service ${step.service} (configured: ${services.join(', ')})` });
    if (step.tool && !step.service && !tools) problems.push({ path: `steps.${name}.service`, message: 'a shipped definition names the service of each tool' });
  }
  const needsTools = Object.values(definition.steps).some((step) => step.tool || step.agent?.tools.some(isServiceTool));
  const found = needsTools && tools ? await findTools(tools) : undefined;
  const resolved = found ? { ...resolveTools(definition.steps, found, problems), ...resolveAgentServiceTools(definition.steps, found.found, problems) } : {};
  problems.push(...(await agentDirectoryProblems(definition.steps, options.agents, !tools)));
  const childAjv = literalChecker();
  problems.push(...(await childPipelineProblems(definition, options.agents, (name, step, schema, what) => argumentProblems(name, step, schema, childAjv, what))));
  // Not compiled here, but published to every MCP client, which may compile it.
  if (definition.output_schema) problems.push(...schemaProblems(definition.output_schema, 'output_schema'));
  const stored: StoredPipeline = { definition, services: resolved, registered_at: options.now ?? new Date().toISOString() };
  try {
    compilePipeline(stored);
  } catch (error) {
    if (!(error instanceof DefinitionError)) throw error;
    // Unresolved tools were reported above with their reason.
    problems.push(...error.problems.filter((p) => !problems.some((known) => known.path === p.path)));
  }
  return { stored, problems };
}
