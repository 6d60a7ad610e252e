/**
 * Registering a definition, the one way every entry point does it (the HTTP API's PUT and the
 * MCP bridge's register_pipeline): validated against the tool services, stored as a new
 * immutable version, or answered as unchanged when it is the latest definition sent again.
 */
import { DefinitionError, type DefinitionProblem } from '../definition/problems.js';
import { validateDefinition, type ToolDirectory } from '../definition/validate.js';
import type { AgentDirectory } from '../definition/validate-agents.js';
import { sameDefinition, type PipelineStore } from '../store/pipeline-store.js';
import { STEP_KINDS } from './shipped.js';

export interface PipelineRegistration {
  name: string;
  version: number;
  /** `unchanged`: the definition was the latest already, or that version held it. */
  outcome: 'created' | 'unchanged';
}

/**
 * The version asked for is taken by another definition or not above the highest the pipeline has
 * had (`version_conflict`), or a count is at its bound: versions of the pipeline
 * (`version_limit`), pipelines (`pipeline_limit`).
 */
export class VersionConflictError extends Error {
  override name = 'VersionConflictError';
  readonly code: 'version_conflict' | 'version_limit' | 'pipeline_limit';
  readonly version: number;
  readonly latest: number;
  constructor(options: { reason: string; code: VersionConflictError['code']; version: number; latest: number }) {
    super(options.reason);
    this.code = options.code;
    this.version = options.version;
    this.latest = options.latest;
  }
}

/**
 * Registers `raw` (a parsed definition naming its pipeline) as the version it asks for, or as
 * the next one. Throws DefinitionError listing every problem (nothing is stored) or
 * VersionConflictError.
 */
export async function registerDefinition(deps: { pipelines: PipelineStore; tools: ToolDirectory; agents?: AgentDirectory | undefined }, raw: { name: string; version?: unknown }): Promise<PipelineRegistration> {
  const { name } = raw;
  const asked = typeof raw.version === 'number' ? raw.version : undefined;
  const latest = await deps.pipelines.get(name);
  // Deleted versions are not reused: the next is above the highest there has been.
  const version = asked ?? (await deps.pipelines.topVersion(name)) + 1;
  const stored = await validateDefinition({ raw, version, tools: deps.tools, agents: deps.agents, kinds: STEP_KINDS });
  // Sending the latest definition again, with no version, is a repeat, not a new version.
  if (latest && asked === undefined && sameDefinition(latest, stored)) return { name, version: latest.definition.version, outcome: 'unchanged' };
  const outcome = await deps.pipelines.register(stored);
  if (outcome.outcome === 'conflict') throw new VersionConflictError({ ...outcome, latest: await deps.pipelines.latestVersion(name) });
  return { name, version: outcome.version, outcome: outcome.outcome };
}

/** Every problem registration would find in `raw`, storing nothing: to list them beside one found before it (e.g. a name that is not the URL's). */
export async function definitionProblemsOf(deps: { tools: ToolDirectory; agents?: AgentDirectory | undefined }, raw: { name: string }): Promise<readonly DefinitionProblem[]> {
  try {
    await validateDefinition({ raw, version: 1, tools: deps.tools, agents: deps.agents, kinds: STEP_KINDS });
    return [];
  } catch (error) {
    if (error instanceof DefinitionError) return error.problems;
    throw error;
  }
}

/** What registration checks agent steps against: the configured names, and the pipelines registered now. */
export function agentDirectory(options: { pipelines: PipelineStore; models: readonly string[]; mcpServers: readonly string[]; mcpTools?: ((server: string) => Promise<readonly string[] | undefined>) | undefined }): AgentDirectory {
  return {
    models: () => options.models,
    mcpServers: () => options.mcpServers,
    ...(options.mcpTools ? { mcpTools: options.mcpTools } : {}),
    hasPipeline: async (name, version) => (await options.pipelines.get(name, version)) !== null,
    pipelineInput: async (name, version) => (await options.pipelines.get(name, version))?.definition.input ?? null,
  };
}
