/**
 * Replies of the orchestrator's HTTP API beside the run view: what starting a run or a batch
 * answers, a page of runs, a batch, `/health`, and the error body. The routes are typed by these
 * schemas and the OpenAPI document is generated from them, so the two cannot drift apart.
 */
import { z } from 'zod';
import { BatchCounts, RunError, RunStatus, RunView, StageView } from './story-runs.js';

/** Where to read a run (or a batch) and follow its events. */
export const RunLinks = z.object({
  poll_url: z.string().describe('GET this for the current state'),
  events_url: z.string().describe('GET this for the events as Server-Sent Events'),
});
export type RunLinks = z.infer<typeof RunLinks>;

/** `202` of `POST /v1/stories`; the other ways of starting a run add to it. */
export const RunAccepted = z.object({
  run_id: z.string(),
  /** `queued` for a new run; a repeated `Idempotency-Key` answers the run's status now. */
  status: RunStatus,
  ...RunLinks.shape,
});
export type RunAccepted = z.infer<typeof RunAccepted>;

/** `202` of `POST /v1/pipelines/{name}/runs`: the run is pinned to this version. */
export const PipelineRunAccepted = RunAccepted.extend({
  pipeline: z.object({ name: z.string(), version: z.number().int().positive() }),
});
export type PipelineRunAccepted = z.infer<typeof PipelineRunAccepted>;

/**
 * Where a listing goes on: every page has a bound on its count (`limit`) and on its bytes; a page
 * that would pass its bytes stops early (`truncated`), and `next_offset` is where the next starts.
 */
export const PageMarks = z.object({
  next_offset: z.number().int().nonnegative().nullable().describe('The `offset` of the next page; null when this page holds the last'),
  truncated: z.boolean().describe('The page stopped before `limit` items because its bytes would have passed the listing budget (`LIST_PAGE_MAX_BYTES`): ask again from `next_offset`'),
});
export type PageMarks = z.infer<typeof PageMarks>;

/** The most characters of a run's `topic` and `title` in a listing. */
export const RUN_LABEL_CHARS = 120;

/**
 * A run as `GET /v1/runs` lists it: what a list shows, without its input, stages and result, which
 * its own URL answers (or `fields` adds here).
 */
export const RunSummary = RunView.pick({ run_id: true, kind: true, status: true, progress: true, created_at: true, updated_at: true, batch_id: true, pipeline: true, parent: true, poll_url: true, events_url: true }).extend({
  topic: z.string().nullable().describe(`A preview of the input: its \`topic\`, \`title\`, \`name\` or \`project.name\`, at most ${RUN_LABEL_CHARS} characters`),
  title: z.string().nullable().describe(`The result's \`title\` once the run has completed (a story's title), at most ${RUN_LABEL_CHARS} characters`),
  request: z.unknown().optional().describe('The run\'s input, with `fields=request`'),
  stages: z.array(StageView).optional().describe('Its stages, with `fields=stages`'),
  result: z.unknown().nullable().optional().describe('Its result, with `fields=result`'),
  error: RunError.nullable().optional().describe('Why it failed, with `fields=error`'),
});
export type RunSummary = z.infer<typeof RunSummary>;

/** `GET /v1/runs`: newest first. */
export const RunList = z.object({
  runs: z.array(RunSummary),
  offset: z.number().int().nonnegative(),
  limit: z.number().int().positive(),
  ...PageMarks.shape,
});
export type RunList = z.infer<typeof RunList>;

/** `202` of `POST /v1/batches`. */
export const BatchAccepted = z.object({
  batch_id: z.string(),
  status: z.literal('queued'),
  total: z.number().int().nonnegative(),
  run_ids: z.array(z.string()),
  ...RunLinks.shape,
});
export type BatchAccepted = z.infer<typeof BatchAccepted>;

/** A batch as the batch store reads it: its counts and a page of its runs. */
export const BatchPage = z.object({
  batch_id: z.string(),
  created_at: z.string(),
  total: z.number().int().nonnegative(),
  /** Runs whose jobs have been enqueued so far. */
  dispatched: z.number().int().nonnegative(),
  counts: BatchCounts,
  cost_usd: z.number().nonnegative().describe("USD its ended runs' agent steps cost, each run's counted as it ends (0 for runs without priced agents)"),
  /** `status` is null for a run that is no longer kept. */
  runs: z.array(z.object({ run_id: z.string(), status: RunStatus.nullable() })),
  offset: z.number().int().nonnegative(),
  limit: z.number().int().positive(),
  ...PageMarks.shape,
});
export type BatchPage = z.infer<typeof BatchPage>;

/** `GET /v1/batches/{id}`: `done` once every run has ended. */
export const BatchView = BatchPage.extend({ status: z.enum(['running', 'done']), ...RunLinks.shape });
export type BatchView = z.infer<typeof BatchView>;

/** A batch in `GET /v1/batches`: its counts, without its runs. */
export const BatchSummary = BatchView.omit({ runs: true, offset: true, limit: true, next_offset: true, truncated: true }).extend({
  /** The pipeline its runs follow; null for a batch recorded before batches named it. */
  pipeline: z.string().nullable(),
});
export type BatchSummary = z.infer<typeof BatchSummary>;

/** `GET /v1/batches`: newest first. */
export const BatchList = z.object({
  batches: z.array(BatchSummary),
  offset: z.number().int().nonnegative(),
  limit: z.number().int().positive(),
  ...PageMarks.shape,
});
export type BatchList = z.infer<typeof BatchList>;

const Check = z.object({ healthy: z.boolean(), latency_ms: z.number().nonnegative(), error: z.string().optional() });

/** `GET /health` of the orchestrator: 200 when `healthy`, 503 when `degraded`. */
export const OrchestratorHealth = z.object({
  status: z.enum(['healthy', 'degraded']),
  redis: Check,
  services: z.record(z.string(), Check.extend({ url: z.string() })),
});
export type OrchestratorHealth = z.infer<typeof OrchestratorHealth>;

/**
 * `GET /livez` and `GET /readyz` of every service (Kubernetes' probes): alive while the process
 * answers; ready when it serves, is not draining and reaches Redis (200), else 503 with the reason.
 */
export const ProbeReport = z.object({
  status: z.enum(['alive', 'ready', 'starting', 'draining', 'degraded']),
  pid: z.number().int(),
  redis: Check.optional(),
});
export type ProbeReport = z.infer<typeof ProbeReport>;

/**
 * The error body the project's own services send. Stricter than `ErrorBody`, which reads other
 * services' errors: here `details` is always present, an object (`{}` when nothing more is said).
 */
export const ApiErrorBody = z.strictObject({
  error: z.strictObject({
    code: z.string().min(1).describe('Stable, for programs: `invalid_parameters`, `run_not_found`, …'),
    message: z.string().min(1).describe('For people: names the field or id at fault'),
    details: z.record(z.string(), z.unknown()),
  }),
});
export type ApiErrorBody = z.infer<typeof ApiErrorBody>;
