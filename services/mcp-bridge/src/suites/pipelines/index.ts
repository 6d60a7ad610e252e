/**
 * Pipelines for agents: every registered pipeline is a tool of its own (`pipeline_<name>`, its
 * input schema the definition's `input`), which starts a run of the latest version and waits a
 * while for it, with progress; plus `list_pipelines` and `get_pipeline`. A pipeline registered
 * while clients are connected becomes a tool at once, and they are told (tools/list_changed).
 * With the tool services' directory, agents register pipelines too (`register_pipeline`).
 */
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { InputError, latestStart, PipelineMissingError, pipelineNotFound, problemsRefusal, startPipelineRun, toRunView, UnusablePipelineError, withinBudget, type CompiledPipeline, type PipelineRunsDeps, type RunWaits, type StoredPipeline, type ToolDirectory } from '@switchyard/pipeline';
import { failure, InvalidArgumentsError, jsonSchemaOf, refusedArguments, success, type ArgumentsRefusal, type JsonSchema, type SuiteTool, type ToolOutcome, type ToolSuite } from '@switchyard/tool-suite';
import { callerFlow } from '../../flow-caller.js';
import { DEFAULT_WAIT_S } from '../jobs/schemas.js';
import { waitAsker } from '../jobs/elicit.js';
import { waitForRun } from '../jobs/wait.js';
import { admittingErrorBody } from '../error-body.js';
import { registerPipelineTool } from './register.js';
import { pipelineToolName } from './tool-name.js';

export interface PipelinesSuiteDeps extends PipelineRunsDeps {
  redis: Redis;
  /** The configured tool services, that registrations are checked against (default none: no register_pipeline). */
  tools?: ToolDirectory | undefined;
  /** What runs wait for: with it, a pipeline's tool asks a client that can show forms for what its run waits for, as wait_for_run does. */
  waits?: RunWaits | undefined;
}

export interface PipelinesSuite extends ToolSuite {
  /** Tells of each new pipeline version by name (e.g. for resource subscriptions); answers the function that stops telling. */
  onPipelineChanged(listener: (name: string) => void): () => void;
  /** Publishes a tool for every pipeline registered now; resolves once they are in the listing. */
  announceRegistered(): Promise<void>;
  /** Stops following registrations. */
  close(): Promise<void>;
}


const ListPipelinesInput = z.strictObject({
  offset: z.number().int().min(0).default(0).describe('Pipelines to skip, in the order their latest version was registered'),
  limit: z.number().int().min(1).max(500).default(100).describe('Most pipelines to answer (default 100); a page also stops early before passing the listing budget'),
});

const GetPipelineInput = z.strictObject({
  name: z.string().min(1).max(60).describe('The pipeline, as list_pipelines names it'),
  version: z.number().int().positive().optional().describe('A version (default: every version, the latest first in `definition`)'),
});

const notFound = (name: string, version?: number) => failure({ error: pipelineNotFound(name, version) });

function runOutputSchema(stored: StoredPipeline): JsonSchema {
  return {
    type: 'object',
    properties: {
      run_id: { type: 'string' },
      status: { type: 'string', enum: ['queued', 'running', 'waiting', 'completed', 'failed', 'cancelled'] },
      pipeline: { type: 'object', properties: { name: { type: 'string' }, version: { type: 'integer' } } },
      timed_out: { type: 'boolean', description: 'The run had not ended when the wait was over: follow it with wait_for_run' },
      result: stored.definition.output_schema ?? {},
      error: {},
      progress: { type: 'number' },
    },
    required: ['run_id', 'status', 'pipeline', 'timed_out'],
  };
}

const unusable = (error: UnusablePipelineError) => failure({ error: { code: 'pipeline_unusable', message: error.message, details: { pipeline: error.pipeline, version: error.version } } });

/** A run input's problems as the registry words argument problems (`arguments/topic must be string`). */
const argumentLines = (pipeline: CompiledPipeline, args: Record<string, unknown>) =>
  pipeline.checkInput(args).map((p) => `${p.path === '(input)' ? 'arguments' : `arguments/${p.path.replace(/\./g, '/')}`} ${p.message}`);

/**
 * The tool that runs `pipeline` (always its latest version: the tool stays as names go). Its
 * arguments are checked by the version's own validator (its ajv, patterns in linear time), not
 * by the bridge's shared one, where a user's `$id` or pattern could harm every other tool.
 */
function pipelineTool(deps: PipelinesSuiteDeps, pipeline: CompiledPipeline): SuiteTool {
  const { stored } = pipeline;
  const { name, description } = stored.definition;
  return {
    name: pipelineToolName(name),
    description: `${description || `Runs the ${name} pipeline.`} Starts a run of pipeline ${name} and waits up to ${DEFAULT_WAIT_S} s for it (progress notifications with a progressToken); a run still going answers timed_out with its run_id for wait_for_run and get_run. Call it as a task for long runs.`,
    inputSchema: stored.definition.input,
    outputSchema: admittingErrorBody(runOutputSchema(stored)),
    annotations: { title: `Run pipeline ${name}`, readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    longRunning: true,
    checkArguments: (args) => argumentLines(pipeline, args),
    async handler(args, context) {
      let runId: string;
      try {
        // The latest version this process knows, checked as the run is admitted (latestStart).
        const require = async () => {
          const pipeline = await deps.pipelines.compiled(name);
          if (!pipeline) throw new PipelineMissingError(`no pipeline ${name} is registered`);
          return pipeline;
        };
        ({ runId } = await startPipelineRun(deps, { ...(await latestStart(deps, name, { require })), input: args, owner: context.keyId, caller: callerFlow(context) }));
      } catch (error) {
        if (error instanceof UnusablePipelineError) return unusable(error);
        if (error instanceof PipelineMissingError) return notFound(name);
        if (error instanceof InputError) throw new InvalidArgumentsError(error.message, { problems: error.problems });
        throw error;
      }
      const timeoutMs = DEFAULT_WAIT_S * 1000;
      // A client that can show forms is asked for what the run waits for (jobs/elicit.ts), as wait_for_run does.
      const asker = context.elicit && deps.waits ? waitAsker({ store: deps.store, waits: deps.waits, pipelines: deps.pipelines, steps: deps.queues.steps }, { runId, by: { scopes: context.scopes }, elicit: context.elicit.bind(context), signal: context.signal, deadline: Date.now() + timeoutMs }) : undefined;
      const waited = await waitForRun(deps, { runId, timeoutMs, signal: context.signal, onProgress: ({ progress, message }) => context.reportProgress({ progress, total: 100, message }), ...(asker ? { onWaiting: asker } : {}) });
      const view = waited ? toRunView(waited.run) : null;
      return success({
        run_id: runId,
        status: view?.status ?? 'queued',
        pipeline: { name, version: pipeline.version },
        timed_out: waited?.timedOut ?? true,
        progress: view?.progress ?? 0,
        ...(view?.result !== undefined && view.result !== null ? { result: view.result } : {}),
        ...(view?.error ? { error: view.error } : {}),
      });
    },
  };
}

/**
 * A pipeline tool's arguments its input schema refuses, answered as the API refuses the same input
 * (`invalid_input`, details.problems at the same paths); any other tool's, in the default shape.
 */
function refusedInput(pipeline: CompiledPipeline | undefined, refusal: ArgumentsRefusal): ToolOutcome {
  const problems = pipeline?.checkInput(refusal.args) ?? [];
  if (!pipeline || problems.length === 0) return refusedArguments(refusal);
  return failure({ error: { code: 'invalid_input', ...problemsRefusal(`Input of pipeline ${pipeline.name}`, problems) } });
}

export function pipelinesSuite(deps: PipelinesSuiteDeps): PipelinesSuite {
  const listeners = new Set<(tools: SuiteTool[]) => void>();
  const removalListeners = new Set<(names: string[]) => void>();
  const changeListeners = new Set<(name: string) => void>();
  const subscriber = deps.redis.duplicate();
  subscriber.on('error', () => undefined); // the shared connection's outages are reported where it is followed
  /** Each pipeline tool's pipeline, as last announced: what its refused arguments are checked by again. */
  const announced = new Map<string, CompiledPipeline>();
  /** The latest version compiled, or null when there is none (deleted) or it no longer compiles. */
  const latestOf = async (name: string) => {
    try {
      return await deps.pipelines.compiled(name);
    } catch (error) {
      if (error instanceof UnusablePipelineError) return null;
      throw error;
    }
  };
  /** Each pipeline's tool as its latest version has it; the tool of a pipeline with none goes. */
  const announce = async (names: readonly string[]) => {
    const latest = await Promise.all(names.map(latestOf));
    const tools = latest.filter((p): p is CompiledPipeline => p !== null).map((p) => {
      announced.set(pipelineToolName(p.name), p);
      return pipelineTool(deps, p);
    });
    const gone = names.filter((_, i) => latest[i] === null).map(pipelineToolName);
    for (const name of gone) announced.delete(name);
    if (tools.length > 0) for (const listener of listeners) listener(tools);
    if (gone.length > 0) for (const listener of removalListeners) listener(gone);
  };
  const announceRegistered = async () => announce((await deps.pipelines.list()).map((p) => p.name));
  subscriber.on('message', (_channel, name: string) => {
    void announce([name]).catch(() => undefined);
    for (const listener of [...changeListeners]) listener(name);
  });
  void subscriber.subscribe(deps.pipelines.changedChannel).catch(() => undefined);

  const tools: SuiteTool[] = [
    {
      name: 'list_pipelines',
      description: 'The registered pipelines, a page at a time (in the order their latest version was registered): name, latest version, description. Each is also a tool, pipeline_<name>, that runs it. next_offset, when not null, is where the next page starts.',
      inputSchema: jsonSchemaOf(ListPipelinesInput),
      outputSchema: admittingErrorBody({
        type: 'object',
        properties: {
          pipelines: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, latest: { type: 'integer' }, description: { type: 'string' }, tool: { type: 'string' } } } },
          next_offset: { type: ['integer', 'null'] },
          truncated: { type: 'boolean' },
        },
        required: ['pipelines'],
      }),
      annotations: { title: 'List pipelines', readOnlyHint: true, idempotentHint: true },
      async handler(args) {
        const page = ListPipelinesInput.parse(args);
        const { pipelines, more } = await deps.pipelines.listPage(page);
        const listed = withinBudget(pipelines.map((p) => ({ ...p, tool: pipelineToolName(p.name) })), { budget: deps.store.limits.listPageBytes, offset: page.offset, more });
        return success({ pipelines: listed.items, next_offset: listed.next_offset, truncated: listed.truncated });
      },
    },
    {
      name: 'get_pipeline',
      description: 'A pipeline\'s definition (steps, input schema, output) and its versions.',
      inputSchema: jsonSchemaOf(GetPipelineInput),
      outputSchema: { type: 'object', properties: { name: { type: 'string' }, latest: { type: 'integer' }, definition: { type: 'object' }, versions: { type: 'array' }, error: { type: 'object' } } },
      annotations: { title: 'Read a pipeline', readOnlyHint: true, idempotentHint: true },
      async handler(args) {
        const { name, version } = GetPipelineInput.parse(args);
        const versions = await deps.pipelines.versions(name);
        const chosen = version ? versions.find((v) => v.definition.version === version) : versions.at(-1);
        if (!chosen) return notFound(name, version);
        return success({ name, latest: versions.at(-1)?.definition.version, definition: chosen.definition, versions: versions.map((v) => ({ version: v.definition.version, registered_at: v.registered_at })) });
      },
    },
  ];
  if (deps.tools) tools.push(registerPipelineTool({ pipelines: deps.pipelines, tools: deps.tools }));
  return {
    name: 'pipelines',
    description: 'Registered pipelines, each a tool.',
    tools,
    refuseArguments: (name, refusal) => refusedInput(announced.get(name), refusal),
    onToolsAdded(listener) {
      listeners.add(listener);
      // The pipelines registered before this process started.
      void announceRegistered().catch(() => undefined);
    },
    announceRegistered,
    onToolsRemoved(listener) {
      removalListeners.add(listener);
    },
    onPipelineChanged(listener) {
      changeListeners.add(listener);
      return () => void changeListeners.delete(listener);
    },
    async close() {
      listeners.clear();
      removalListeners.clear();
      changeListeners.clear();
      await subscriber.quit().catch(() => undefined);
    },
  };
}

