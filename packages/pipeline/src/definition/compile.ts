/**
 * A stored definition made ready to run: its expressions compiled, its steps in an order where
 * each comes after what it needs, and for each step the queue its jobs go to. Compiling needs no
 * I/O: what registration looked up (which service publishes each tool) is stored with it.
 */
import { compileArgs, compileExpression, ExpressionError, type ArgsEvaluator, type Expression, type ExpressionContext } from './expressions.js';
import { compileInputSchema, inputProblems } from './input-schema.js';
import { DefinitionError, type DefinitionProblem } from './problems.js';
import type { PipelineDefinition, StepDefinition } from './schema.js';
import { AGENT_QUEUE, CHILD_QUEUE, kindQueue, toolQueue, WAITS_QUEUE } from './queues.js';
import { fallbackProblems, fallbackSteps } from './fallbacks.js';
import { compileAgent, type CompiledAgent } from './compile-agent.js';
import { compileWait, type CompiledWait } from './compile-wait.js';

export type StepTarget = { kind: 'tool'; service: string; tool: string } | { kind: 'uses'; uses: string } | { kind: 'agent'; agent: CompiledAgent } | { kind: 'wait'; wait: CompiledWait } | { kind: 'pipeline'; pipeline: string; version?: number | undefined };

export interface CompiledStep {
  name: string;
  definition: StepDefinition;
  target: StepTarget;
  /** The queue its jobs go to. */
  queue: string;
  needs: readonly string[];
  /** Steps that need this one. */
  dependents: readonly string[];
  args: ArgsEvaluator;
  map?: Expression | undefined;
  when?: Expression | undefined;
  until?: Expression | undefined;
  /** Its concurrency key (`concurrency`): at most `limit` of its jobs at once per value of `key`. */
  concurrency?: CompiledConcurrency | undefined;
}

export interface CompiledConcurrency {
  key: Expression;
  limit: number;
}

/** A definition as stored: the definition itself and the service chosen for each tool step. */
export interface StoredPipeline {
  definition: PipelineDefinition & { version: number };
  /**
   * Step name → the service publishing its tool, found at registration; for an agent's tools
   * `<step>.tools.<index>` → the service publishing that tool.
   */
  services: Record<string, string>;
  registered_at: string;
}

export interface CompiledPipeline {
  name: string;
  version: number;
  stored: StoredPipeline;
  steps: ReadonlyMap<string, CompiledStep>;
  /** Every step, each after the steps it needs (declaration order among equals). */
  order: readonly string[];
  /** Steps that need nothing: a run starts with these. */
  roots: readonly string[];
  /** Steps that run only as another's `on_error` fallback, each → the step it stands in for: outside `order`, no stage until taken (fallbacks.ts). */
  fallbacks: ReadonlyMap<string, string>;
  /**
   * The one step that every other step leads to, when there is one (and it is no map): once it
   * has run, the run is done, so it reads every output when it starts and ends the run itself.
   */
  finalStep?: string | undefined;
  /** The run's result from its input and its steps' outputs (a value, or a promise of one). */
  output?: { evaluate(context: ExpressionContext): unknown } | undefined;
  /** Its runs' concurrency key: at most `limit` runs at once per value of `key` (over the input). */
  concurrency?: CompiledConcurrency | undefined;
  /** Whose fair share its runs take (`key` over the input) and its weight (a number, or an expression over the input); absent: the caller's, weight 1. */
  fairness?: { key: Expression; weight: number | Expression } | undefined;
  /** Checks a run's input against the definition's `input` schema. */
  checkInput(input: unknown): DefinitionProblem[];
}

/** Steps in dependency order, or the problems that prevent one (unknown needs, cycles). */
export function orderSteps(steps: Record<string, Pick<StepDefinition, 'needs'>>): { order: string[]; problems: DefinitionProblem[] } {
  const problems: DefinitionProblem[] = [];
  for (const [name, step] of Object.entries(steps)) {
    step.needs.forEach((need, i) => {
      if (!(need in steps)) problems.push({ path: `steps.${name}.needs.${i}`, message: `needs ${JSON.stringify(need)}, which is not a step of this pipeline` });
      else if (need === name) problems.push({ path: `steps.${name}.needs.${i}`, message: 'a step cannot need itself' });
    });
  }
  if (problems.length > 0) return { order: [], problems };
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, trail: string[]): void => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') {
      const cycle = [...trail.slice(trail.indexOf(name)), name];
      problems.push({ path: `steps.${name}.needs`, message: `cycle: ${cycle.join(' → ')}` });
      return;
    }
    state.set(name, 'visiting');
    for (const need of steps[name]?.needs ?? []) visit(need, [...trail, name]);
    state.set(name, 'done');
    order.push(name);
  };
  for (const name of Object.keys(steps)) visit(name, []);
  return { order: problems.length > 0 ? [] : order, problems };
}

/** Compiles the expressions of every step; collects every problem instead of stopping at one. */
function compileStep(name: string, step: StepDefinition, problems: DefinitionProblem[]): Pick<CompiledStep, 'args' | 'map' | 'when' | 'until'> {
  const attempt = <T>(build: () => T): T | undefined => {
    try {
      return build();
    } catch (error) {
      if (error instanceof Error && 'place' in error) problems.push({ path: String((error as { place: string }).place), message: error.message.replace(/^[^:]+: /, '') });
      else throw error;
      return undefined;
    }
  };
  const place = (field: string) => `steps.${name}.${field}`;
  const budget = { timeoutMs: step.expression_timeout };
  return {
    args: attempt(() => compileArgs(step.args as never, place('args'), budget)) ?? compileArgs(undefined, place('args')),
    map: step.map ? attempt(() => compileExpression(step.map as string, place('map'), budget)) : undefined,
    when: step.when ? attempt(() => compileExpression(step.when as string, place('when'), budget)) : undefined,
    until: step.repeat ? attempt(() => compileExpression(step.repeat?.until as string, place('repeat.until'), budget)) : undefined,
  };
}

/** The sink every other step leads to, if there is exactly one such step and it is no map. */
function finalStepOf(steps: ReadonlyMap<string, CompiledStep>, order: readonly string[]): string | undefined {
  const sinks = order.filter((name) => (steps.get(name)?.dependents.length ?? 0) === 0);
  if (sinks.length !== 1) return undefined;
  const sink = steps.get(sinks[0] as string);
  return sink && !sink.map ? sink.name : undefined;
}

function queueOf(target: StepTarget): string {
  if (target.kind === 'tool') return toolQueue(target.service);
  if (target.kind === 'agent') return AGENT_QUEUE;
  if (target.kind === 'wait') return WAITS_QUEUE;
  if (target.kind === 'pipeline') return CHILD_QUEUE;
  return kindQueue(target.uses);
}

/** Compiles a stored definition; throws a DefinitionError listing every problem found. */
export function compilePipeline(stored: StoredPipeline): CompiledPipeline {
  const { definition } = stored;
  const problems: DefinitionProblem[] = [];
  // Fallbacks are outside the graph: they run when the step naming them fails, never in order.
  const fallbacks = fallbackSteps(definition.steps);
  const graph = Object.fromEntries(Object.entries(definition.steps).filter(([name]) => !fallbacks.has(name)));
  problems.push(...fallbackProblems(definition.steps));
  const { order, problems: orderProblems } = orderSteps(graph);
  problems.push(...orderProblems);
  const dependents = new Map<string, string[]>(Object.keys(definition.steps).map((name) => [name, []]));
  for (const [name, step] of Object.entries(graph)) for (const need of step.needs) dependents.get(need)?.push(name);

  const steps = new Map<string, CompiledStep>();
  for (const [name, step] of Object.entries(definition.steps)) {
    const compiled = compileStep(name, step, problems);
    let target: StepTarget;
    if (step.wait) {
      const wait = compileWait({ name, wait: step.wait, problems });
      if (!wait) continue;
      target = { kind: 'wait', wait };
    } else if (step.agent) {
      const agent = compileAgent({ name, step, agent: step.agent, services: stored.services, problems });
      if (!agent) continue;
      target = { kind: 'agent', agent };
    } else if (step.tool) {
      const service = step.service ?? stored.services[name];
      if (!service) {
        problems.push({ path: `steps.${name}.tool`, message: `no service was found for tool ${step.tool}` });
        continue;
      }
      target = { kind: 'tool', service, tool: step.tool };
    } else if (step.pipeline) target = { kind: 'pipeline', pipeline: step.pipeline, version: step.version };
    else target = { kind: 'uses', uses: step.uses as string };
    steps.set(name, { name, definition: step, target, queue: queueOf(target), needs: step.needs, dependents: dependents.get(name) ?? [], ...compiled });
  }
  const signals = new Map<string, string>();
  for (const [name, step] of Object.entries(definition.steps)) {
    if (!step.wait) continue;
    const first = signals.get(step.wait.signal);
    if (first) problems.push({ path: `steps.${name}.wait.signal`, message: `signal ${step.wait.signal} is waited for by ${first} already: a signal answers one step` });
    else signals.set(step.wait.signal, name);
  }
  let output: CompiledPipeline['output'];
  if (definition.output !== undefined) {
    const template = definition.output;
    try {
      output = typeof template === 'string' ? compileExpression(template, 'output') : compileArgs(template, 'output');
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      problems.push({ path: error.place, message: error.message.slice(error.place.length + 2) });
    }
  }
  const flowExpression = (source: string, place: string): Expression | undefined => {
    try {
      return compileExpression(source, place);
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      problems.push({ path: error.place, message: error.message.slice(error.place.length + 2) });
      return undefined;
    }
  };
  const concurrencyOf = (declared: { key: string; limit: number } | undefined, place: string): CompiledConcurrency | undefined => {
    const key = declared ? flowExpression(declared.key, `${place}.key`) : undefined;
    return key && declared ? { key, limit: declared.limit } : undefined;
  };
  for (const step of steps.values()) {
    if (step.definition.concurrency) step.concurrency = concurrencyOf(step.definition.concurrency, `steps.${step.name}.concurrency`);
  }
  const concurrency = concurrencyOf(definition.concurrency, 'concurrency');
  const fairnessKey = definition.fairness ? flowExpression(definition.fairness.key, 'fairness.key') : undefined;
  const declaredWeight = definition.fairness?.weight ?? 1;
  const fairnessWeight = typeof declaredWeight === 'number' ? declaredWeight : flowExpression(declaredWeight, 'fairness.weight');
  const input = compileInputSchema(definition.input);
  if ('problems' in input) problems.push(...input.problems);
  if (problems.length > 0 || !('validate' in input)) throw new DefinitionError(problems);
  const validateInput = input.validate;
  return {
    finalStep: finalStepOf(steps, order),
    name: definition.name,
    version: definition.version,
    stored,
    steps,
    order,
    roots: order.filter((name) => (definition.steps[name]?.needs.length ?? 0) === 0),
    fallbacks,
    output,
    ...(concurrency ? { concurrency } : {}),
    ...(fairnessKey && fairnessWeight !== undefined ? { fairness: { key: fairnessKey, weight: fairnessWeight } } : {}),
    checkInput: (value) => inputProblems(validateInput, value),
  };
}
