/**
 * Registering and running user-defined pipelines in tests, over the HTTP API.
 */
import type { TestStack } from './stack.js';

export interface StageRecord {
  name: string;
  status: string;
  attempts: number;
  iterations?: number;
  /** A child pipeline step's child run. */
  child_run?: string;
  /** The on_error step that stood in for this failed one. */
  fallback?: string;
  started_at: string | null;
  finished_at: string | null;
  error: { code: string; message: string } | null;
}

export interface RunBody {
  run_id: string;
  status: string;
  pipeline: { name: string; version: number } | null;
  stages: StageRecord[];
  result: unknown;
  error: { code: string; message: string; stage?: string } | null;
}

/** PUT /v1/pipelines/{name} as JSON; resolves with the status and body. */
export function putPipeline(stack: TestStack, definition: Record<string, unknown> & { name: string }) {
  return stack.json<{ name: string; version: number; outcome: string; error?: { code: string; message: string; details: { problems: { path: string; message: string }[] } } }>(`/v1/pipelines/${definition.name}`, { method: 'PUT', body: JSON.stringify(definition) });
}

/** Registers a definition, failing the test unless it is accepted. */
export async function registerPipeline(stack: TestStack, definition: Record<string, unknown> & { name: string }): Promise<number> {
  const { status, body } = await putPipeline(stack, definition);
  if (status !== 201 && status !== 200) throw new Error(`PUT ${definition.name} answered ${status}: ${JSON.stringify(body)}`);
  return body.version;
}

/** POST /v1/pipelines/{name}/runs; resolves with the run id, failing the test on anything but 202. */
export async function startRun(stack: TestStack, name: string, input: unknown): Promise<string> {
  const { status, body } = await stack.json<{ run_id: string }>(`/v1/pipelines/${name}/runs`, { method: 'POST', body: JSON.stringify(input) });
  if (status !== 202) throw new Error(`POST /v1/pipelines/${name}/runs answered ${status}: ${JSON.stringify(body)}`);
  return body.run_id;
}

export async function finishedRun(stack: TestStack, runId: string, timeoutMs = 30_000): Promise<RunBody> {
  return (await stack.waitForRun(runId, timeoutMs)) as unknown as RunBody;
}

export const stageOf = (run: RunBody, name: string) => run.stages.find((s) => s.name === name);
