/**
 * Pipelines as data: register a definition (YAML or JSON) as a new immutable version, read
 * them, and start runs of one. A run pins the version it started with, so registering a new
 * version never changes a run in flight.
 */
import express, { Router, type Request } from 'express';
import type { PipelineRunAccepted } from '@switchyard/contracts';
import { describeZodError, findUnsafeJson, HttpError, methodNotAllowed, requestKeyId } from '@switchyard/http-kit';
import { definitionProblemsOf, DefinitionError, InputError, withinBudget, newRunId, parseDefinitionText, PIPELINE_NAME, pipelineJsonSchema, pipelineNotFound, problemsRefusal, registerDefinition, runLinks, latestStart, startPipelineRun, VersionConflictError, type CompiledPipeline, type DefinitionProblem, type StartedRun } from '@switchyard/pipeline';
import type { AppDeps } from '../deps.js';
import { claimIdempotencyKey } from '../idempotency.js';
import { notifyHook } from '../notify.js';
import { callerOf } from '../flow-caller.js';
import { jsonBody } from '../json-body.js';
import { deletionRoutes } from './pipeline-deletion.js';
import { PipelineListQuery, VersionQuery, type PipelineList, type PipelineRegistered, type PipelineView } from './pipeline-shapes.js';

/**
 * What is read of a definition's body: more than a definition may be (MAX_DEFINITION_BYTES), so
 * that one up to this size is refused as a problem with its place rather than by the parser.
 */
const DEFINITION_BODY_LIMIT = '1mb';
const JSON_TYPES = ['application/json', 'application/*+json'];
const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml', 'text/plain'];

/** A definition's problems, every one listed with its place; nothing is stored. */
export function definitionProblems(error: DefinitionError, code: string, what: string): HttpError {
  return new HttpError({ status: 400, code, ...problemsRefusal(what, error.problems) });
}

function pipelineName(req: Request): string {
  const name = String(req.params.name);
  if (!PIPELINE_NAME.test(name)) throw new HttpError({ status: 404, ...pipelineNotFound(name) });
  return name;
}

/**
 * The body as a definition: its text parsed here, JSON or YAML, within the definition's bounds
 * (so a hostile one costs a bounded scan, not a parse). A name that is not the URL's is a
 * problem, told with the definition's others (checked under the URL's).
 */
function definitionOf(req: Request, name: string): { definition: { name: string; version?: unknown }; misnamed?: DefinitionProblem } {
  const raw = parseDefinitionText(String(req.body), { json: Boolean(req.is(JSON_TYPES)) });
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new DefinitionError([{ path: '(definition)', message: 'a definition is a YAML or JSON object' }]);
  // As every JSON body is held to (http-kit): no NUL, no lone surrogate.
  const unsafe = findUnsafeJson(raw);
  if (unsafe) throw new DefinitionError([{ path: unsafe.path === '(body)' ? '(definition)' : unsafe.path, message: unsafe.problem }]);
  const body = raw as Record<string, unknown>;
  const misnamed = body.name !== undefined && body.name !== name ? { path: 'name', message: `is ${JSON.stringify(body.name)}, but the definition was sent to /v1/pipelines/${name}: it must be ${name}` } : undefined;
  return { definition: { ...body, name }, ...(misnamed ? { misnamed } : {}) };
}

async function requireVersion(deps: AppDeps, name: string, version?: number): Promise<CompiledPipeline> {
  const pipeline = await deps.pipelines.compiled(name, version);
  if (!pipeline) throw new HttpError({ status: 404, ...pipelineNotFound(name, version) });
  return pipeline;
}

/** The body as text, JSON and YAML alike: parsed by the route, within a definition's bounds. */
const definitionBody = express.text({ type: [...JSON_TYPES, ...YAML_TYPES], limit: DEFINITION_BODY_LIMIT });

export function pipelinesRouter(deps: AppDeps): Router {
  const router = Router();

  router.get('/v1/pipelines', async (req, res) => {
    const query = PipelineListQuery.safeParse(req.query);
    if (!query.success) throw new HttpError({ status: 400, code: 'invalid_parameters', ...describeZodError(query.error) });
    const { pipelines, more } = await deps.pipelines.listPage(query.data);
    const page = withinBudget(pipelines, { budget: deps.store.limits.listPageBytes, offset: query.data.offset, more });
    const list: PipelineList = { pipelines: page.items, ...query.data, next_offset: page.next_offset, truncated: page.truncated };
    res.json(list);
  });

  router.put('/v1/pipelines/:name', definitionBody, async (req, res) => {
    const name = pipelineName(req);
    if (typeof req.body !== 'string') {
      throw new HttpError({ status: 415, code: 'unsupported_media_type', message: 'Send the definition as application/json or application/yaml', details: {} });
    }
    try {
      const { definition, misnamed } = definitionOf(req, name);
      if (misnamed) throw new DefinitionError([misnamed, ...(await definitionProblemsOf(deps, definition))]);
      const registered: PipelineRegistered = await registerDefinition(deps, definition);
      res.status(registered.outcome === 'created' ? 201 : 200).location(`/v1/pipelines/${name}`).json(registered);
    } catch (error) {
      if (error instanceof DefinitionError) throw definitionProblems(error, 'invalid_pipeline', `Pipeline ${name} is not valid`);
      if (error instanceof VersionConflictError) throw new HttpError({ status: 409, code: error.code, message: error.message, details: { version: error.version, latest: error.latest } });
      throw error;
    }
  });

  router.get('/v1/pipelines/:name', async (req, res) => {
    const name = pipelineName(req);
    const versions = await deps.pipelines.versions(name);
    const latest = versions.at(-1);
    if (!latest) throw new HttpError({ status: 404, ...pipelineNotFound(name) });
    const view: PipelineView = {
      name,
      latest: latest.definition.version,
      description: latest.definition.description,
      definition: latest.definition,
      versions: versions.map((v) => ({ version: v.definition.version, registered_at: v.registered_at, definition: v.definition })),
    };
    res.json(view);
  });

  router.post('/v1/pipelines/:name/runs', jsonBody('11mb', deps.jsonMaxDepth), async (req, res) => {
    const name = pipelineName(req);
    const query = VersionQuery.safeParse(req.query);
    if (!query.success) throw new HttpError({ status: 400, code: 'invalid_parameters', ...describeZodError(query.error) });
    const onRecorded = notifyHook(deps, 'run', query.data.notify_url);
    const asked = query.data.version;
    // With an Idempotency-Key the version is in the request's fingerprint, so it is read before the
    // key is claimed; else the latest this process knows is checked as the run is admitted.
    const start = await latestStart(deps, name, { readNow: asked !== undefined || req.get('idempotency-key') !== undefined, require: () => requireVersion(deps, name, asked) });
    const { pipeline } = start;
    const input: unknown = req.body;
    const claim = await claimIdempotencyKey({ req, redis: deps.redis, keyFor: deps.store.keys.idempotency, scope: `pipeline:${name}`, body: { input, version: pipeline.version }, freshId: newRunId(), retentionSeconds: deps.store.retentionSeconds });
    let started: StartedRun;
    try {
      // A repeat finishes a start its first request may have left half done (a process died in it).
      started = await startPipelineRun(deps, { ...start, input, runId: claim.id, repeated: claim.repeated, owner: requestKeyId(res), caller: callerOf(res, query.data.priority), ...(onRecorded ? { onRecorded } : {}) });
    } catch (error) {
      await claim.release();
      if (error instanceof InputError) throw definitionProblems(error, 'invalid_input', `Input of pipeline ${name}`);
      throw error;
    }
    const links = runLinks(claim.id);
    const accepted: PipelineRunAccepted = { run_id: claim.id, status: started.status, pipeline: { name, version: started.pipeline.version }, ...links };
    res.status(202).location(links.poll_url).json(accepted);
  });

  deletionRoutes(router, deps, pipelineName);
  router.all('/v1/pipelines', methodNotAllowed('GET'));
  router.all('/v1/pipelines/:name', methodNotAllowed('GET, PUT, DELETE'));
  router.all('/v1/pipelines/:name/versions/:version', methodNotAllowed('DELETE'));
  router.all('/v1/pipelines/:name/runs', methodNotAllowed('POST'));
  return router;
}

/** The definition format as JSON Schema, for editors; public, like any schema. */
export function pipelineSchemaRouter(): Router {
  const router = Router();
  const schema = pipelineJsonSchema();
  router.get('/schemas/pipeline.json', (_req, res) => {
    res.json(schema);
  });
  return router;
}
