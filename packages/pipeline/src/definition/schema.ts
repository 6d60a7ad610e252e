/**
 * The pipeline definition format: one zod schema for YAML and JSON alike, published as a JSON
 * Schema for editors (see pipelines/pipeline.schema.json). Expressions are JSONata, written as
 * strings; what they may read is described in docs/PIPELINES.md.
 */
import { z } from 'zod';
import { ToolCallMode } from '@switchyard/contracts';
import { AgentDefinition } from './agent-schema.js';
import { WaitDefinition } from './wait-schema.js';
import { MAX_ARG_KEY_CHARS, MAX_DESCRIPTION_CHARS, MAX_EXPRESSION_CHARS, MAX_LITERAL_SIZE, MAX_NEEDS, MAX_STEP_DESCRIPTION_CHARS, MAX_STEPS, MAX_VERSION } from './limits.js';

/** Step names become stage names and job ids: plain, and without '.', which separates map branches. */
export const STEP_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,59}$/;
export const PIPELINE_NAME = /^[a-z][a-z0-9-]{0,59}$/;
/** A loop may run its step at most this many times. */
export const MAX_REPEAT = 20;
/** Attempts per step at most (BullMQ's attempts of its job). */
export const MAX_STEP_ATTEMPTS = 10;

const Expression = z.string().min(1).max(MAX_EXPRESSION_CHARS).describe('A JSONata expression');

/** A duration in ms, or a string such as "30s", "2m", "500ms". */
export const Duration = z.union([
  z.number().int().positive().max(24 * 3600_000),
  z
    .string()
    .regex(/^\d+(\.\d+)?(ms|s|m|h)$/, 'expected a duration such as 500ms, 30s, 2m or 1h')
    .transform((text, ctx) => {
      const [, amount, unit] = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text) ?? [];
      const ms = Number(amount) * { ms: 1, s: 1000, m: 60_000, h: 3600_000 }[unit as 'ms' | 's' | 'm' | 'h'];
      if (ms <= 0 || ms > 24 * 3600_000) ctx.addIssue({ code: 'custom', message: 'a duration must be above 0 and at most 24h' });
      return Math.round(ms);
    }),
], { error: 'a duration above 0 and at most 24h: milliseconds as a whole number, or a number with ms, s, m or h, such as 500ms, 30s or 2m' });

/**
 * `args` is one expression giving the whole object, or an object whose string values are
 * expressions and whose other values are taken as they are (nested objects likewise).
 */
export type ArgsTemplate = string | { [key: string]: unknown };

/**
 * An args object's bounds, which its record type cannot say: each string in it is an expression
 * (at most MAX_EXPRESSION_CHARS), each key at most MAX_ARG_KEY_CHARS, and each other value a
 * literal of at most MAX_LITERAL_SIZE as JSON. Nesting is bounded with the whole definition's.
 */
function checkTemplate(template: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const pending: { object: Record<string, unknown>; path: string[] }[] = [{ object: template, path: [] }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    for (const [key, value] of Object.entries(next.object)) {
      const path = [...next.path, key];
      if (key.length > MAX_ARG_KEY_CHARS) ctx.addIssue({ code: 'custom', path, message: `a key is at most ${MAX_ARG_KEY_CHARS} characters (this one has ${key.length})` });
      if (typeof value === 'string') {
        if (value.length > MAX_EXPRESSION_CHARS) ctx.addIssue({ code: 'custom', path, message: `an expression is at most ${MAX_EXPRESSION_CHARS} characters (this one has ${value.length})` });
      } else if (value && typeof value === 'object' && !Array.isArray(value)) pending.push({ object: value as Record<string, unknown>, path });
      else {
        const size = JSON.stringify(value)?.length ?? 0;
        if (size > MAX_LITERAL_SIZE) ctx.addIssue({ code: 'custom', path, message: `a literal value is at most ${MAX_LITERAL_SIZE} characters as JSON (this one has ${size})` });
      }
    }
  }
}

const Args = z
  .union([Expression, z.record(z.string(), z.unknown()).superRefine(checkTemplate)])
  .describe('An expression giving the arguments, or an object whose string values are expressions');

/** Most runs or steps a concurrency key may let through at once. */
export const MAX_CONCURRENCY_LIMIT = 10_000;

export const ConcurrencyDefinition = z
  .strictObject({
    key: Expression.describe('Its value names the key, e.g. `input.user`: at most `limit` at once per value (a value that is not text is written as JSON; none is one key of its own)'),
    limit: z.number().int().min(1).max(MAX_CONCURRENCY_LIMIT).describe('At most this many at once per key value; the rest wait queued, holding no worker slot, and start in order as others end'),
  })
  .describe("A concurrency key (docs/PIPELINES.md, \"Flow control\")");

export const FairnessDefinition = z
  .strictObject({
    key: Expression.describe("Its value names whose share a run's jobs take, e.g. `input.tenant` (default: the API key that started the run)"),
    weight: z
      .union([z.number().min(0.01).max(100), Expression])
      .default(1)
      .describe("How large a share a run's key takes against others waiting in the same queue and class: a number, or an expression over the input giving one per key (e.g. `input.tenant = 'gold' ? 3 : 1`); held to 0.01–100, default 1"),
  })
  .describe('Fair shares between callers (docs/PIPELINES.md, "Flow control")');

export const StepDefinition = z
  .strictObject({
    concurrency: ConcurrencyDefinition.optional(),
    description: z.string().max(MAX_STEP_DESCRIPTION_CHARS).optional(),
    tool: z.string().min(1).max(200).optional().describe('A tool published on GET /tools by a configured tool service'),
    service: z.string().min(1).max(60).optional().describe('The service publishing `tool`, when more than one does'),
    uses: z.string().min(1).max(100).optional().describe('A step kind registered in code, e.g. aceflow.stage'),
    agent: AgentDefinition.optional().describe('A model that chooses which of its tools to call until it answers (docs/PIPELINES.md, "Agent steps")'),
    wait: WaitDefinition.optional().describe('Waits for a signal, whose payload is the output (docs/PIPELINES.md, "Waits and approvals")'),
    pipeline: z.string().regex(PIPELINE_NAME, 'a pipeline name: lower-case letters, digits and -, starting with a letter').optional().describe('A registered pipeline, run as a child run with `args` as its input; its result is the step\'s output'),
    version: z.number().int().positive().max(MAX_VERSION).optional().describe('The version of `pipeline` (default: its latest when the child starts)'),
    on_error: z.string().regex(STEP_NAME).optional().describe('A step that runs, reading `error`, when this one fails for good; its output stands for this step\'s'),
    needs: z.array(z.string().max(60)).max(MAX_NEEDS).default([]).describe('Steps this one waits for'),
    args: Args.optional(),
    map: Expression.optional().describe('A list computed at run time: the step runs once per item (`item`, `index`), in parallel'),
    when: Expression.optional().describe('The step runs only when this is true; otherwise it is skipped'),
    repeat: z
      .strictObject({
        until: Expression.describe('Checked after each run, with `output` and `iteration`'),
        max: z.number().int().min(1).max(MAX_REPEAT).describe('Runs at most'),
        on_limit: z.enum(['continue', 'fail']).default('continue').describe('What happens when `until` is still false after `max` runs'),
      })
      .optional(),
    mode: ToolCallMode.optional().describe('How the tool is called (default: the service\'s configured mode)'),
    timeout: Duration.optional().describe('Per attempt'),
    expression_timeout: Duration.optional().describe("The time budget of each evaluation of this step's expressions that are not plain; below the deployment's EXPRESSION_TIMEOUT_MS, which it cannot raise"),
    retry: z
      .strictObject({
        attempts: z.number().int().min(1).max(MAX_STEP_ATTEMPTS).optional(),
        backoff: Duration.optional().describe('First delay between attempts, doubling'),
      })
      .optional(),
  })
  .superRefine((step, ctx) => {
    if ([step.tool, step.uses, step.agent, step.wait, step.pipeline].filter(Boolean).length !== 1) ctx.addIssue({ code: 'custom', message: 'a step needs exactly one of `tool`, `uses`, `agent`, `wait` and `pipeline`', path: [] });
    if (step.wait && (step.args !== undefined || step.map || step.repeat)) ctx.addIssue({ code: 'custom', message: 'a wait step takes no `args`, `map` or `repeat`: its output is the signal', path: [] });
    if (step.version !== undefined && !step.pipeline) ctx.addIssue({ code: 'custom', message: '`version` goes with `pipeline`', path: ['version'] });
    if (step.agent && step.args !== undefined) ctx.addIssue({ code: 'custom', message: "an agent step takes no `args`: its `agent.prompt` and `agent.instructions` are its expressions", path: ['args'] });
    if (step.agent && step.repeat) ctx.addIssue({ code: 'custom', message: 'an agent step loops by itself (`agent.max_turns`): it takes no `repeat`', path: ['repeat'] });
    if (step.service && !step.tool) ctx.addIssue({ code: 'custom', message: '`service` goes with `tool`', path: ['service'] });
    if (step.mode && !step.tool) ctx.addIssue({ code: 'custom', message: '`mode` applies to tool calls only', path: ['mode'] });
  });
export type StepDefinition = z.output<typeof StepDefinition>;

export const PipelineDefinition = z.strictObject({
  name: z.string().regex(PIPELINE_NAME, 'lower-case letters, digits and -, starting with a letter'),
  version: z.number().int().positive().max(MAX_VERSION, `a version is a whole number from 1 to ${MAX_VERSION}`).optional().describe(`Given by the server when absent: one more than the highest so far (at most ${MAX_VERSION})`),
  description: z.string().max(MAX_DESCRIPTION_CHARS).default(''),
  input: z
    .record(z.string(), z.unknown())
    .refine((schema) => schema.type === 'object', 'a run\'s input is an object: its schema has type: object')
    .default({ type: 'object' })
    .describe('JSON Schema of a run\'s input (type: object)'),
  output: Args.optional().describe('The run\'s result, from `input` and `steps`: an expression, or an object whose string values are expressions (default: every step\'s output)'),
  output_schema: z.record(z.string(), z.unknown()).optional().describe('JSON Schema of the result, for MCP clients'),
  concurrency: ConcurrencyDefinition.optional(),
  fairness: FairnessDefinition.optional(),
  max_cost: z.number().positive().max(1_000_000).optional().describe("USD the run's agent steps together may cost at most (its child runs' are their own), by the models' prices in MODELS; past it the agent step that reached it fails with run_cost_exceeded"),
  steps: z
    .record(z.string().regex(STEP_NAME, 'a step name is a letter then letters, digits, _ or -'), StepDefinition)
    .refine((steps) => Object.keys(steps).length > 0, 'a pipeline needs at least one step')
    .refine((steps) => Object.keys(steps).length <= MAX_STEPS, `a pipeline has at most ${MAX_STEPS} steps`),
});
export type PipelineDefinition = z.output<typeof PipelineDefinition>;
export type PipelineDefinitionInput = z.input<typeof PipelineDefinition>;

/** The format as a JSON Schema, for editors. */
export function pipelineJsonSchema(): Record<string, unknown> {
  return {
    title: 'Switchyard pipeline definition',
    ...(z.toJSONSchema(PipelineDefinition, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>),
  };
}
