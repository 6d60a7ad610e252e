/**
 * Wire shapes of the orchestrator's run API: what a client sends to start a story or a batch,
 * what it reads back about a run, and the events it can follow.
 */
import { z } from 'zod';
import { OutlineOutput, SearchResult, SectionName, Improvement } from './story-tools.js';
import { AgentTranscriptView, AgentUsage } from './agent-transcript.js';

const Label = (max: number) => z.string().trim().min(1).max(max);

/** `POST /v1/stories`: unknown fields are refused so that a typo is not silently ignored. */
export const StoryRequest = z.strictObject({
  topic: Label(500),
  style: Label(50).optional(),
  structure: Label(100).optional(),
  target_audience: Label(50).optional(),
  focus_areas: z.array(Label(50)).max(10).optional(),
  depth: z.number().int().min(1).max(10).optional(),
});
export type StoryRequest = z.infer<typeof StoryRequest>;

/** Most items in a batch; larger batches are split by the caller. */
export const MAX_BATCH_ITEMS = 10_000;

/** A webhook told when a run or a batch ends: a URL whose host WEBHOOK_ALLOW lists. */
export const NotifyRequest = z.strictObject({ url: z.string().min(1).max(2048).describe('Where the end is POSTed, signed (`Switchyard-Signature`); its host must be in `WEBHOOK_ALLOW`') });
export type NotifyRequest = z.infer<typeof NotifyRequest>;

/** A run's priority class: 1 goes first, 9 last. */
export const RunPriority = z.number().int().min(1).max(9).describe("1 goes first, 9 last (default: 3 for a single run started by a person or an agent, 6 for a batch's or a schedule's runs)");

/** Why a queued run (or step) has not started: docs/PIPELINES.md, "Flow control". */
export const WaitReason = z.enum(['priority', 'fair_share', 'concurrency_key', 'starting']);
export type WaitReason = z.infer<typeof WaitReason>;

/** A run's flow control, and why it waits while it is queued. */
export const RunFlowView = z.object({
  priority: z.number().int().min(1).max(9).describe('Its priority class: 1 goes first, 9 last'),
  key: z.string().describe("Whose fair share its jobs take: `key:<API key id>`, `schedule:<name>`, or `v:<value>` of its pipeline's `fairness.key`"),
  weight: z.number().optional().describe("Its key's weight, when not 1"),
  concurrency: z.object({ scope: z.string(), value: z.string(), limit: z.number().int() }).optional().describe("The concurrency key the run holds while it runs (its pipeline's `concurrency`)"),
  waiting: z
    .object({
      reason: WaitReason.describe('`concurrency_key`: its key has `limit` runs going; `priority`: work of a higher class is ahead; `fair_share`: other keys\' work of its class is served first in turn (or, with no `queue`, its batch adds it once its key\'s backlog drains); `starting`: nothing is ahead of it'),
      queue: z.string().optional().describe('The queue its first step waits in'),
      ahead: z.number().int().nonnegative().optional().describe('Jobs ahead of it in that queue (all classes), or runs ahead of it behind its concurrency key'),
      ahead_higher_priority: z.number().int().nonnegative().optional().describe('Of those, jobs of a higher class'),
      holders: z.number().int().nonnegative().optional().describe('Runs holding its concurrency key now'),
    })
    .optional()
    .describe('Present while the run is queued'),
});
export type RunFlowView = z.infer<typeof RunFlowView>;

/** `POST /v1/batches`: each item is merged over `defaults`, then must be a whole StoryRequest. */
export const BatchRequest = z.strictObject({
  items: z.array(StoryRequest.partial()).min(1).max(MAX_BATCH_ITEMS),
  defaults: StoryRequest.partial().optional(),
  notify: NotifyRequest.optional().describe('A webhook told once, when every run of the batch has ended'),
  priority: RunPriority.optional(),
});
export type BatchRequest = z.infer<typeof BatchRequest>;

/** `POST /v1/batches` with `pipeline`: a batch of any registered pipeline; each item merged over `defaults` is one run's input. */
export const PipelineBatchRequest = z.strictObject({
  pipeline: z.string().min(1).max(60),
  /** The version every run is pinned to (default: the latest). */
  version: z.number().int().positive().optional(),
  items: z.array(z.record(z.string(), z.unknown())).min(1).max(MAX_BATCH_ITEMS),
  defaults: z.record(z.string(), z.unknown()).optional(),
  notify: NotifyRequest.optional().describe('A webhook told once, when every run of the batch has ended'),
  priority: RunPriority.optional(),
});
export type PipelineBatchRequest = z.infer<typeof PipelineBatchRequest>;

/** `waiting`: the run waits for a person (an approval) or a signal; it holds no worker meanwhile. */
export const RunStatus = z.enum(['queued', 'running', 'waiting', 'completed', 'failed', 'cancelled']);
export type RunStatus = z.infer<typeof RunStatus>;
export const TERMINAL_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled'];
/** The statuses of a run that has not ended: what a run may fail, be cancelled or end from. */
export const LIVE_STATUSES: readonly RunStatus[] = ['queued', 'running', 'waiting'];

/** `skipped`: the step's condition was false; it counts as done and has no output. */
export const StageStatus = z.enum(['pending', 'running', 'retrying', 'completed', 'skipped', 'failed', 'cancelled']);
export type StageStatus = z.infer<typeof StageStatus>;

export const RunError = z.object({
  code: z.string(),
  message: z.string(),
  stage: z.string().optional(),
  retryable: z.boolean().optional(),
  details: z.unknown().optional(),
});
export type RunError = z.infer<typeof RunError>;

export const StageView = z.object({
  name: z.string(),
  /** Runs of a looping step (`repeat`), once it has looped. */
  iterations: z.number().int().positive().optional(),
  status: StageStatus,
  attempts: z.number().int().nonnegative(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  error: RunError.nullable(),
  /** An agent step's conversation so far (see agent-transcript.ts). */
  agent: AgentTranscriptView.optional(),
  /** A child pipeline step's run of its pipeline (its `parent` names this run and stage). */
  child_run: z.string().optional().describe("A child pipeline step's child run: GET /v1/runs/{child_run}"),
  /** A step that failed for good and whose `on_error` fallback was taken: the fallback step, whose output stands for this one's. */
  fallback: z.string().optional().describe("The on_error step that ran when this one failed; its output stands for this step's"),
});
export type StageView = z.infer<typeof StageView>;

export const StorySection = z.object({
  name: SectionName,
  title: z.string(),
  content: z.string(),
  word_count: z.number().int().nonnegative(),
});
export type StorySection = z.infer<typeof StorySection>;

export const StoryResult = z.object({
  title: z.string(),
  content: z.string(),
  word_count: z.number().int().nonnegative(),
  sections: z.array(StorySection),
  improvements: z.array(Improvement),
  research: z.array(SearchResult),
  outline: OutlineOutput,
});
export type StoryResult = z.infer<typeof StoryResult>;

export const RunView = z.object({
  run_id: z.string(),
  kind: z.string(),
  status: RunStatus,
  progress: z.number().min(0).max(100),
  created_at: z.string(),
  updated_at: z.string(),
  batch_id: z.string().nullable(),
  /** The pipeline definition and version the run follows. */
  pipeline: z.object({ name: z.string(), version: z.number().int().positive() }).nullable(),
  request: z.unknown(),
  stages: z.array(StageView),
  result: z.unknown().nullable(),
  error: RunError.nullable(),
  /** The run (and its agent stage) that started this one as a tool call. */
  parent: z.object({ run_id: z.string(), stage: z.string() }).optional(),
  /** Its priority, its fair-share key, its concurrency key, and why it waits while queued. */
  flow: RunFlowView.optional(),
  /** What the run's agent stages cost in USD (a child run's own cost is in its own view). */
  cost_usd: z.number().nonnegative().optional().describe("USD the run's agent stages cost, by their models' prices (present when the run has an agent stage)"),
  poll_url: z.string(),
  events_url: z.string(),
});
export type RunView = z.infer<typeof RunView>;

/** How far a run is: its stages done (completed or skipped) of all it has. */
export const RunProgress = z.object({ percent: z.number().min(0).max(100), completed_stages: z.number().int().nonnegative(), total_stages: z.number().int().nonnegative() });

/** The events of a run, as stored in its Redis stream and sent over SSE. */
export const RunEventName = z.enum(['stage', 'content', 'reset', 'error', 'turn', 'tool_call', 'tool_result', 'waiting', 'done']);
export type RunEventName = z.infer<typeof RunEventName>;

/** The data of each run event, by event name. */
export const RunEventSchemas = {
  /** A stage that completed or was skipped carries the run's progress it made. */
  stage: z.object({ stage: z.string(), status: StageStatus, attempt: z.number().int().nonnegative(), error: RunError.optional(), progress: RunProgress.optional() }),
  content: z.object({ stage: z.string(), section: z.string(), chunk: z.string() }),
  /** A stream broke and starts over: drop what was received for this section. */
  reset: z.object({ stage: z.string(), section: z.string() }),
  error: RunError.extend({ will_retry: z.boolean() }),
  /** An agent step's model turn was recorded: how many it has had, whether it called tools, the tokens so far. */
  turn: z.object({ stage: z.string(), turn: z.number().int().positive(), tool_calls: z.number().int().nonnegative(), usage: AgentUsage }),
  /** An agent's model asked for a tool; `arguments` is the start of what it wrote. */
  tool_call: z.object({ stage: z.string(), turn: z.number().int().positive(), call_id: z.string(), tool: z.string(), arguments: z.string() }),
  /** A tool call's result was recorded; `preview` is its start. */
  tool_result: z.object({ stage: z.string(), turn: z.number().int().positive(), call_id: z.string(), tool: z.string(), is_error: z.boolean(), preview: z.string() }),
  /** The run waits: for an approval of an agent's tool call, or for a signal; `resolved` when it no longer does. */
  waiting: z.object({ stage: z.string(), kind: z.enum(['approval', 'signal']), key: z.string(), state: z.enum(['pending', 'resolved']), tool: z.string().optional(), arguments: z.string().optional(), reason: z.string().optional(), signal: z.string().optional(), outcome: z.string().optional() }),
  /** Over SSE, a completed run's `done` carries its result. */
  done: z.object({ status: RunStatus, result: z.unknown().optional(), error: RunError.optional() }),
} as const satisfies Record<RunEventName, z.ZodType>;
export type RunEventData = { [E in RunEventName]: z.infer<(typeof RunEventSchemas)[E]> };

export const BatchCounts = z.record(RunStatus, z.number().int().nonnegative());
export type BatchCounts = z.infer<typeof BatchCounts>;

/** The events of a batch: `run` as each of its runs ends, `done` once all have, with the counts. */
export const BatchEventName = z.enum(['run', 'done']);
export type BatchEventName = z.infer<typeof BatchEventName>;
export const BatchEventSchemas = {
  run: z.object({ run_id: z.string(), status: RunStatus }),
  done: z.object({ counts: BatchCounts }),
} as const satisfies Record<BatchEventName, z.ZodType>;
