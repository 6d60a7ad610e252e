/**
 * Pipelines in the OpenAPI document (register, read, run), and the public routes: `/health`, the probes,
 * the definition format's JSON Schema, this document and its reference page.
 */
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { OrchestratorHealth, PipelineRunAccepted, ProbeReport } from '@switchyard/contracts';
import { DefinitionBody, PipelineDeleted, PipelineList, PipelineListQuery, PipelineRegistered, PipelineRunInput, PipelineVersionDeleted, PipelineView, VersionParam, VersionQuery } from '../routes/pipeline-shapes.js';
import { BODY_ERRORS, errors, IdempotencyHeader, INPUT_TOO_LARGE, jsonResponse, LocationHeader, PipelineNameParam } from './common.js';

/** The media types `PUT /v1/pipelines/{name}` reads as YAML (JSON is JSON). */
const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml', 'text/plain'];
const PIPELINE_NOT_FOUND = 'No such pipeline, or no such version of it (`pipeline_not_found`)';
/** Any JSON value: a JSON Schema, or this document. */
const JsonObject = z.record(z.string(), z.unknown());
const PUBLIC = { security: [] };

export const pipelinePaths: ZodOpenApiPathsObject = {
  '/v1/pipelines': {
    get: {
      operationId: 'listPipelines',
      tags: ['pipelines'],
      summary: 'List pipelines, each by its latest version',
      description: 'In the order their latest version was registered, a page at a time: at most `limit`, and it stops early before its bytes pass the listing budget (`truncated`; `next_offset` goes on).',
      requestParams: { query: PipelineListQuery },
      responses: { '200': jsonResponse('A page of the registered pipelines', PipelineList), ...errors({ v1: true, routeErrors: { 400: 'A bad `offset` or `limit` (`invalid_parameters`)' } }) },
    },
  },
  '/v1/pipelines/{name}': {
    get: {
      operationId: 'getPipeline',
      tags: ['pipelines'],
      summary: 'Read a pipeline: its latest definition and every version',
      requestParams: { path: PipelineNameParam },
      responses: { '200': jsonResponse('The pipeline', PipelineView), ...errors({ v1: true, routeErrors: { 404: PIPELINE_NOT_FOUND } }) },
    },
    delete: {
      operationId: 'deletePipeline',
      tags: ['pipelines'],
      summary: 'Delete a pipeline: every version',
      description: 'Every version is gone from listings and new runs at once (404); runs already started go on, on their version. Version numbers are never given again, should the name be registered anew. The pipelines shipped with Switchyard (`story`, `aceflow`) cannot be deleted.',
      requestParams: { path: PipelineNameParam },
      responses: {
        '200': jsonResponse('The pipeline is deleted', PipelineDeleted),
        ...errors({ v1: true, routeErrors: { 404: PIPELINE_NOT_FOUND, 409: 'A pipeline shipped with Switchyard, whose routes run it (`pipeline_shipped`)' } }),
      },
    },
    put: {
      operationId: 'registerPipeline',
      tags: ['pipelines'],
      summary: 'Register a pipeline definition as a new version',
      description:
        'The definition is validated against the format, the tool services\' `GET /tools` and the step kinds; a bad one is refused with every problem and its place, and nothing is stored. Versions are immutable: without `version`, the next one is taken; sending the latest definition again is `unchanged`.',
      requestParams: { path: PipelineNameParam },
      requestBody: {
        required: true,
        description: 'The definition, as JSON or YAML',
        content: Object.fromEntries([['application/json', { schema: DefinitionBody }], ...YAML_TYPES.map((type) => [type, { schema: DefinitionBody }])]),
      },
      responses: {
        '201': jsonResponse('A new version is stored', PipelineRegistered, LocationHeader),
        '200': jsonResponse('That definition is already the latest (`unchanged`)', PipelineRegistered, LocationHeader),
        ...errors({
          v1: true,
          routeErrors: {
            ...BODY_ERRORS,
            400: 'The definition is not valid (`invalid_pipeline`, every problem in `details.problems`), or the body is not JSON or YAML',
            404: 'The name is not a pipeline name (`pipeline_not_found`)',
            409: 'That version exists with another definition, or is not above the highest the pipeline has had (`version_conflict`); the pipeline has as many versions as it may (`version_limit`), or there are as many pipelines as there may be (`pipeline_limit`)',
            415: 'The body is neither JSON nor YAML (`unsupported_media_type`), or its `Content-Encoding` is unknown',
          },
        }),
      },
    },
  },
  '/v1/pipelines/{name}/versions/{version}': {
    delete: {
      operationId: 'deletePipelineVersion',
      tags: ['pipelines'],
      summary: 'Delete one version of a pipeline',
      description: 'The version is gone from listings and new runs at once (404); runs already started on it go on, on it. Its number is never given again. The latest becomes the highest version left.',
      requestParams: { path: PipelineNameParam.extend(VersionParam.shape) },
      responses: {
        '200': jsonResponse('The version is deleted', PipelineVersionDeleted),
        ...errors({ v1: true, routeErrors: { 404: PIPELINE_NOT_FOUND, 409: 'It is the last version of a pipeline shipped with Switchyard, whose routes run it (`pipeline_shipped`)' } }),
      },
    },
  },
  '/v1/pipelines/{name}/runs': {
    post: {
      operationId: 'startPipelineRun',
      tags: ['pipelines', 'runs'],
      summary: 'Start a run of a pipeline',
      description: 'The run is pinned to the version it starts with; registering a new version never changes it.',
      requestParams: { path: PipelineNameParam, query: VersionQuery, header: IdempotencyHeader },
      requestBody: { required: true, content: { 'application/json': { schema: PipelineRunInput } } },
      responses: {
        '202': jsonResponse('The run is recorded and its first steps are queued', PipelineRunAccepted, LocationHeader),
        ...errors({
          v1: true,
          routeErrors: {
            ...BODY_ERRORS,
            400: 'A bad `version`, an input the pipeline refuses (`invalid_parameters`, `invalid_json`, `invalid_input`), or a `notify_url` whose host WEBHOOK_ALLOW does not list (`invalid_notify`, naming `notify.url`)',
            413: INPUT_TOO_LARGE,
            404: PIPELINE_NOT_FOUND,
            409: 'The `Idempotency-Key` was used with another body (`idempotency_conflict`), or the version was stored before checks it now fails: delete it (`pipeline_unusable`)',
          },
        }),
      },
    },
  },
  '/schemas/pipeline.json': {
    get: {
      ...PUBLIC,
      operationId: 'getPipelineSchema',
      tags: ['pipelines'],
      summary: 'The pipeline definition format as JSON Schema (for editors)',
      responses: { '200': jsonResponse('A JSON Schema (draft 2020-12)', JsonObject) },
    },
  },
  '/health': {
    get: {
      ...PUBLIC,
      operationId: 'getHealth',
      tags: ['service'],
      summary: 'Redis and each tool service',
      responses: {
        '200': jsonResponse('Redis and every tool service are healthy', OrchestratorHealth),
        '503': jsonResponse('Something is not (`degraded`); the report says what', OrchestratorHealth),
      },
    },
  },
  '/livez': {
    get: {
      ...PUBLIC,
      operationId: 'getLiveness',
      tags: ['service'],
      summary: "Kubernetes' liveness probe: the process answers (Redis is not asked: an outage is no reason to restart)",
      responses: { '200': jsonResponse('Alive (`alive`)', ProbeReport) },
    },
  },
  '/readyz': {
    get: {
      ...PUBLIC,
      operationId: 'getReadiness',
      tags: ['service'],
      summary: "Kubernetes' readiness probe: this process serves, is not draining, and reaches Redis",
      responses: {
        '200': jsonResponse('Ready (`ready`)', ProbeReport),
        '503': jsonResponse('Not ready: `draining` after SIGTERM, or `degraded` (Redis unreachable; `redis` says why)', ProbeReport),
      },
    },
  },
  '/metrics': {
    get: {
      ...PUBLIC,
      operationId: 'getMetrics',
      tags: ['service'],
      summary: "This orchestrator's metrics for Prometheus: runs started and ended, SSE clients, queue depths, Redis round trip, the process",
      responses: { '200': { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain; version=0.0.4; charset=utf-8': { schema: z.string() } } } },
    },
  },
  '/openapi.json': {
    get: {
      ...PUBLIC,
      operationId: 'getOpenApiDocument',
      tags: ['service'],
      summary: 'This document (OpenAPI 3.1)',
      responses: { '200': jsonResponse('The OpenAPI document', JsonObject) },
    },
  },
  '/docs': {
    get: {
      ...PUBLIC,
      operationId: 'getApiReference',
      tags: ['service'],
      summary: 'An interactive reference of this API (Swagger UI, served locally)',
      responses: { '200': { description: 'An HTML page', content: { 'text/html': { schema: z.string() } } } },
    },
  },
};
