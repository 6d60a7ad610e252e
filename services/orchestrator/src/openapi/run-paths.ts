/**
 * The run API in the OpenAPI document: starting stories, AceFlow runs and batches, reading,
 * following and cancelling runs, reading and following batches.
 */
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import {
  AceflowRunAccepted,
  AceflowRunRequest,
  BatchAccepted,
  BatchEventSchemas,
  BatchRequest,
  BatchList,
  BatchView,
  PipelineBatchRequest,
  RunAccepted,
  RunEventSchemas,
  RunList,
  RunView,
  StoryRequest,
} from '@switchyard/contracts';
import { BatchListQuery, BatchPageQuery } from '../routes/batches.js';
import { RunListQuery } from '../routes/runs.js';
import { BatchIdParam, BODY_ERRORS, errors, eventStream, IdempotencyHeader, INPUT_TOO_LARGE, jsonResponse, LastEventIdHeader, LocationHeader, RunIdParam } from './common.js';
import { StoryQuery } from '../routes/stories.js';

const jsonBody = (schema: z.ZodType, description?: string) => ({ required: true, ...(description ? { description } : {}), content: { 'application/json': { schema } } });
const IDEMPOTENCY_CONFLICT = 'The `Idempotency-Key` was used with another body (`idempotency_conflict`)';
/** What an event stream answers past the caps on open streams (sse-streams.ts). */
const STREAM_CAPS = {
  429: 'This API key holds the most event streams one key may hold open at once (`too_many_streams`); try again after `Retry-After` seconds',
  503: 'Redis is unreachable (`redis_unavailable`), or this server holds the most event streams it serves at once (`sse_capacity`); try again after `Retry-After` seconds',
} as const;

export const runPaths: ZodOpenApiPathsObject = {
  '/v1/stories': {
    post: {
      operationId: 'startStory',
      tags: ['runs'],
      summary: 'Start a story',
      description: 'Runs the shipped `story` pipeline on the request. Unknown fields are refused.',
      requestParams: { header: IdempotencyHeader, query: StoryQuery },
      requestBody: jsonBody(StoryRequest),
      responses: {
        '202': jsonResponse('The run is recorded and its first steps are queued', RunAccepted, LocationHeader),
        ...errors({ v1: true, routeErrors: { ...BODY_ERRORS, 400: 'A bad body (`invalid_parameters`, `invalid_json`), or a `notify_url` whose host WEBHOOK_ALLOW does not list (`invalid_notify`, naming `notify.url`)', 409: IDEMPOTENCY_CONFLICT } }),
      },
    },
  },
  '/v1/aceflow/runs': {
    post: {
      operationId: 'startAceflowRun',
      tags: ['runs'],
      summary: 'Start an AceFlow stage-generation run',
      description: "Checks the analysis against seed 000's data rules and runs the stages of the project's mode (or the slice `from_stage`…`to_stage`).",
      requestParams: { header: IdempotencyHeader },
      requestBody: jsonBody(AceflowRunRequest),
      responses: {
        '202': jsonResponse('The run is recorded; `stages` are the stages it will write, in order', AceflowRunAccepted, LocationHeader),
        ...errors({
          v1: true,
          routeErrors: {
            ...BODY_ERRORS,
            400: 'A bad or missing body, one nested deeper than 64 levels, an analysis breaking the data rules, or a stage range outside the mode (`invalid_parameters`, `invalid_json`)',
            413: INPUT_TOO_LARGE,
            409: IDEMPOTENCY_CONFLICT,
            415: 'The body\'s `Content-Encoding` is unknown (`unsupported_encoding`)',
          },
        }),
      },
    },
  },
  '/v1/runs': {
    get: {
      operationId: 'listRuns',
      tags: ['runs'],
      summary: 'List runs, newest first',
      description:
        'Optionally only runs of one `status` and of one `pipeline`. Each run is a summary (status, progress, pipeline, times, the input\'s `topic`, the result\'s `title`), without its input, stages or result: `fields` adds them, as `GET /v1/runs/{runId}` gives them. A page holds at most `limit` runs and stops early before its bytes pass the listing budget (`truncated`); `next_offset` is where the next page starts.',
      requestParams: { query: RunListQuery },
      responses: {
        '200': jsonResponse('A page of runs', RunList),
        ...errors({ v1: true, routeErrors: { 400: 'A bad `offset`, `limit`, `status`, `pipeline` or `fields` (`invalid_parameters`)' } }),
      },
    },
  },
  '/v1/runs/{runId}': {
    get: {
      operationId: 'getRun',
      tags: ['runs'],
      summary: 'Read a run: status, progress, stages, result',
      requestParams: { path: RunIdParam },
      responses: {
        '200': jsonResponse('The run', RunView),
        ...errors({ v1: true, routeErrors: { 404: 'No such run (`run_not_found`)' } }),
      },
    },
    delete: {
      operationId: 'cancelRun',
      tags: ['runs'],
      summary: 'Cancel a run',
      description: 'Moves the run to `cancelled`; its stages in flight stop within moments. Cancelling a cancelled run answers it again.',
      requestParams: { path: RunIdParam },
      responses: {
        '200': jsonResponse('The cancelled run', RunView),
        ...errors({ v1: true, routeErrors: { 404: 'No such run (`run_not_found`)', 409: 'The run has already completed or failed (`run_finished`)' } }),
      },
    },
  },
  '/v1/runs/{runId}/events': {
    get: {
      operationId: 'followRun',
      tags: ['runs'],
      summary: "Follow a run's events (Server-Sent Events)",
      description: 'Replays the events (from `Last-Event-ID`, or from the start), then follows them until `done`, which carries the result of a completed run. A `Last-Event-ID` at or past the end of a finished run gets its `done` at once.',
      requestParams: { path: RunIdParam, header: LastEventIdHeader },
      responses: {
        '200': eventStream('The run\'s events: `stage` (a completed stage\'s with the run\'s progress), `content`, `reset`, `error`, an agent step\'s `turn`, `tool_call` and `tool_result`, `done`', RunEventSchemas),
        ...errors({ v1: true, routeErrors: { 404: 'No such run (`run_not_found`)', ...STREAM_CAPS } }),
      },
    },
  },
  '/v1/batches': {
    get: {
      operationId: 'listBatches',
      tags: ['batches'],
      summary: 'List batches, newest first, with their counts',
      requestParams: { query: BatchListQuery },
      responses: {
        '200': jsonResponse('A page of batches', BatchList),
        ...errors({ v1: true, routeErrors: { 400: 'A bad `offset` or `limit` (`invalid_parameters`)' } }),
      },
    },
    post: {
      operationId: 'startBatch',
      tags: ['batches'],
      summary: 'Start a batch of runs',
      description: 'Without `pipeline`, each item merged over `defaults` is a story request; with it, each is an input of that pipeline. All runs are recorded at once and enqueued by a dispatcher.',
      requestParams: { header: IdempotencyHeader },
      requestBody: jsonBody(z.union([BatchRequest, PipelineBatchRequest])),
      responses: {
        '202': jsonResponse('The batch and its runs are recorded', BatchAccepted, LocationHeader),
        ...errors({
          v1: true,
          routeErrors: { ...BODY_ERRORS, 400: 'A bad body, an item that is not a valid input (`invalid_parameters`, `invalid_json`, `invalid_input`), or a `notify.url` whose host WEBHOOK_ALLOW does not list (`invalid_notify`)', 404: 'No such pipeline or version (`pipeline_not_found`)', 409: IDEMPOTENCY_CONFLICT, 413: INPUT_TOO_LARGE },
        }),
      },
    },
  },
  '/v1/batches/{batchId}': {
    get: {
      operationId: 'getBatch',
      tags: ['batches'],
      summary: "Read a batch: counts by status and a page of its runs",
      requestParams: { path: BatchIdParam, query: BatchPageQuery },
      responses: {
        '200': jsonResponse('The batch', BatchView),
        ...errors({ v1: true, routeErrors: { 400: 'A bad `offset` or `limit` (`invalid_parameters`)', 404: 'No such batch (`batch_not_found`)' } }),
      },
    },
  },
  '/v1/batches/{batchId}/events': {
    get: {
      operationId: 'followBatch',
      tags: ['batches'],
      summary: "Follow a batch's events (Server-Sent Events)",
      description: 'A `run` event as each run ends, then `done` with the counts. A `Last-Event-ID` at or past the end of a finished batch gets its `done` at once.',
      requestParams: { path: BatchIdParam, header: LastEventIdHeader },
      responses: {
        '200': eventStream('The batch\'s events: `run`, `done`', BatchEventSchemas),
        ...errors({ v1: true, routeErrors: { 404: 'No such batch (`batch_not_found`)', ...STREAM_CAPS } }),
      },
    },
  },
};
