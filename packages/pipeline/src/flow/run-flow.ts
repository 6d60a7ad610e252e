/**
 * A run's flow control, settled when the run is created and kept in its record (field `flow`)
 * and in every job of it: its priority class, whose fair share it takes, and the concurrency key
 * it holds while it runs.
 */
import { MAX_FAIR_KEY_CHARS, PRIORITY_SINGLE_RUN, type FlowTag, type GateTag } from '../catalog.js';
import type { CompiledConcurrency, CompiledPipeline } from '../definition/compile.js';
import { ExpressionError, type ExpressionContext } from '../definition/expressions.js';

/** What the caller brings: the priority it asked for, and who it is (its fair-share key). */
export interface CallerFlow {
  /** 1 (first) to 9 (last); default: PRIORITY_SINGLE_RUN for a single run, PRIORITY_BATCH for a batch's or a schedule's. */
  priority?: number | undefined;
  /** Whose share its runs take unless the pipeline names a key: `key:<API key id>`, `schedule:<name>`. */
  key?: string | undefined;
}

/** The fair-share key of a caller with no API key (a deployment without keys). */
export const ANONYMOUS_KEY = 'key:-';

/** The caller key of an API key (its id, the digest's first characters). */
export const callerKey = (keyId: string | undefined) => (keyId ? `key:${keyId}` : ANONYMOUS_KEY);

/** A key's value as the text it is compared by: text itself, anything else as JSON, cut to MAX_FAIR_KEY_CHARS. */
export function keyText(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
  return text.slice(0, MAX_FAIR_KEY_CHARS);
}

/** A key expression's value over `context`; an expression that fails gives `null` (one key of its own), not a refused run. */
export async function keyValue(expression: { evaluate(context: ExpressionContext): Promise<unknown> }, context: ExpressionContext): Promise<string> {
  try {
    return keyText(await expression.evaluate(context));
  } catch (error) {
    if (error instanceof ExpressionError) return 'null';
    throw error;
  }
}

/** The gate of a concurrency key for `scope` over `context`. */
export async function gateOf(concurrency: CompiledConcurrency, scope: string, context: ExpressionContext): Promise<GateTag> {
  return { scope, value: await keyValue(concurrency.key, context), limit: concurrency.limit };
}

/** A key's weight: the number, or the expression's value held to 0.01–100 (1 when it gives no number or fails). */
async function weightOf(weight: number | { evaluate(context: ExpressionContext): Promise<unknown> }, context: ExpressionContext): Promise<number> {
  if (typeof weight === 'number') return weight;
  let value: unknown;
  try {
    value = await weight.evaluate(context);
  } catch (error) {
    if (error instanceof ExpressionError) return 1;
    throw error;
  }
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(100, Math.max(0.01, value)) : 1;
}

/** The flow of a new run of `pipeline` for `caller`. */
export async function runFlow(options: { pipeline: CompiledPipeline; input: unknown; runId: string; caller?: CallerFlow | undefined; defaultPriority?: number }): Promise<FlowTag> {
  const { pipeline, caller } = options;
  const context: ExpressionContext = { input: options.input, steps: {}, run_id: options.runId };
  const flow: FlowTag = { priority: caller?.priority ?? options.defaultPriority ?? PRIORITY_SINGLE_RUN, key: caller?.key ?? ANONYMOUS_KEY };
  if (pipeline.fairness) {
    flow.key = keyText(`v:${await keyValue(pipeline.fairness.key, context)}`);
    const weight = await weightOf(pipeline.fairness.weight, context);
    if (weight !== 1) flow.weight = weight;
  }
  if (pipeline.concurrency) flow.gate = await gateOf(pipeline.concurrency, `run:${pipeline.name}`, context);
  return flow;
}

/**
 * The flow of a child run (a child pipeline step, an agent's pipeline call): its parent's
 * priority, key and weight, as it is its parent's work; the concurrency key of its own pipeline,
 * if any (never its parent's, which its parent holds already).
 */
export async function childFlow(pipeline: CompiledPipeline, input: unknown, runId: string, parent: FlowTag): Promise<FlowTag> {
  const flow: FlowTag = { priority: parent.priority, key: parent.key, ...(parent.weight === undefined ? {} : { weight: parent.weight }) };
  if (pipeline.concurrency) flow.gate = await gateOf(pipeline.concurrency, `run:${pipeline.name}`, { input, steps: {}, run_id: runId });
  return flow;
}
