/**
 * register_pipeline: an agent defines a pipeline as the API's PUT /v1/pipelines/{name} does
 * (YAML or JSON, checked against the configured tool services, stored as a new immutable
 * version), and it becomes a tool of its own at once (tools/list_changed).
 */
import { z } from 'zod';
import { DefinitionError, parseDefinitionText, PIPELINE_NAME, problemsRefusal, registerDefinition, VersionConflictError, type DefinitionProblem, type PipelineStore, type ToolDirectory } from '@switchyard/pipeline';
import { failure, jsonSchemaOf, success, type SuiteTool, type ToolOutcome } from '@switchyard/tool-suite';
import { admittingErrorBody } from '../error-body.js';
import { pipelineToolName } from './tool-name.js';

const RegisterPipelineInput = z.strictObject({
  definition: z
    .union([z.string().min(1).max(1_000_000), z.record(z.string(), z.unknown())])
    .describe('The definition, as YAML or JSON text or as an object: name, steps, and optionally version, description, input, output, output_schema (the format is published as JSON Schema at GET /schemas/pipeline.json of the API)'),
});

/** Every problem of a definition, each with its place (e.g. `steps.write.args.topic`); nothing was stored. */
const invalid = (name: string, problems: readonly DefinitionProblem[]): ToolOutcome => failure({ error: { code: 'invalid_pipeline', ...problemsRefusal(`Pipeline ${name} is not valid`, problems) } });

/** The definition as an object naming a pipeline, or the problems that make it none. */
function definitionOf(definition: string | Record<string, unknown>): { raw: { name: string } } | { problems: DefinitionProblem[] } {
  let raw: unknown = definition;
  if (typeof definition === 'string') {
    try {
      raw = parseDefinitionText(definition);
    } catch (error) {
      if (error instanceof DefinitionError) return { problems: [...error.problems] };
      throw error;
    }
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { problems: [{ path: '(definition)', message: 'a definition is an object' }] };
  const { name } = raw as { name?: unknown };
  if (typeof name !== 'string' || !PIPELINE_NAME.test(name)) return { problems: [{ path: 'name', message: 'a pipeline is named with lower-case letters, digits and -, starting with a letter' }] };
  return { raw: raw as { name: string } };
}

export function registerPipelineTool(deps: { pipelines: PipelineStore; tools: ToolDirectory }): SuiteTool {
  return {
    name: 'register_pipeline',
    description:
      'Registers a pipeline definition as its next version (or the version it names; versions are immutable). It is checked first against the tool services (every tool known, arguments fitting their input schemas, expressions, needs without cycles, loops bounded): a bad one is refused with every problem and its place, and nothing is stored. Once registered it is a tool, pipeline_<name>; sending the latest definition again changes nothing.',
    inputSchema: jsonSchemaOf(RegisterPipelineInput),
    outputSchema: admittingErrorBody({
      type: 'object',
      properties: { name: { type: 'string' }, version: { type: 'integer' }, outcome: { type: 'string', enum: ['created', 'unchanged'] }, tool: { type: 'string', description: 'The tool that runs it' } },
      required: ['name', 'version', 'outcome', 'tool'],
    }),
    annotations: { title: 'Register a pipeline', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    async handler(args) {
      const found = definitionOf(RegisterPipelineInput.parse(args).definition);
      if ('problems' in found) return invalid('(unnamed)', found.problems);
      const { name } = found.raw;
      try {
        const registered = await registerDefinition(deps, found.raw);
        return success({ ...registered, tool: pipelineToolName(name) });
      } catch (error) {
        if (error instanceof DefinitionError) return invalid(name, error.problems);
        if (error instanceof VersionConflictError) return failure({ error: { code: error.code, message: error.message, details: { version: error.version, latest: error.latest } } });
        throw error;
      }
    },
  };
}
