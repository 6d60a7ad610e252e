/**
 * JSONata expressions of a definition, compiled once per definition version. What an
 * expression can read is its context: `input`, `steps` (each finished step's output; a map
 * step's is the list of its branches' outputs), `run_id`, and where they apply `item` and
 * `index` (a map branch), `output` and `iteration` (a loop's `until`), `previous` (the output
 * of a loop's previous run).
 */
import jsonata from 'jsonata';
import { describeJsonataError as describe } from './jsonata-errors.js';
import { LinearRegExp } from './linear-regex.js';
import { compilePlain, NOT_PLAIN } from './plain-jsonata.js';
import { sharedSandbox } from './sandbox/shared.js';
import { SandboxEvaluationError } from './sandbox/sandbox.js';
import type { ArgsTemplate } from './schema.js';

export interface ExpressionContext {
  input: unknown;
  steps: Record<string, unknown>;
  run_id: string;
  item?: unknown;
  index?: number;
  output?: unknown;
  iteration?: number;
  previous?: unknown;
  /** An agent's tool call's arguments, for its tool's `approval` expression. */
  arguments?: unknown;
  /** In an `on_error` fallback: the failure it stands in for, `{code, message, step}`. */
  error?: unknown;
}

/** `expression_budget_exceeded` when an evaluation ran past its budget (sandbox/budget.ts). */
export type ExpressionErrorCode = 'expression_failed' | 'expression_budget_exceeded';

/** An expression that failed to parse or to evaluate, with the place it was written. */
export class ExpressionError extends Error {
  override name = 'ExpressionError';
  readonly place: string;
  readonly code: ExpressionErrorCode;
  constructor(place: string, message: string, code: ExpressionErrorCode = 'expression_failed') {
    super(`${place}: ${message}`);
    this.place = place;
    this.code = code;
  }
}

export interface Expression {
  readonly source: string;
  readonly place: string;
  evaluate(context: ExpressionContext): Promise<unknown>;
  /** The value at once when plain JavaScript has it (plain-jsonata.ts), else NOT_PLAIN: then `evaluate` is JSONata's. */
  now(context: ExpressionContext): unknown;
  /** JSONata's value, without trying plain JavaScript first: for an expression whose `now` gave NOT_PLAIN. */
  viaJsonata(context: ExpressionContext): Promise<unknown>;
  /** Whether the expression names `field` anywhere (e.g. `steps`): what its value can depend on. */
  names(field: string): boolean;
}

function namesIn(node: unknown, field: string): boolean {
  if (Array.isArray(node)) return node.some((inner) => namesIn(inner, field));
  if (!node || typeof node !== 'object') return false;
  const { type, value } = node as { type?: unknown; value?: unknown };
  if (type === 'name' && value === field) return true;
  return Object.values(node).some((inner) => typeof inner === 'object' && namesIn(inner, field));
}

const CONTEXT_FIELDS = ['input', 'steps', 'run_id', 'item', 'index', 'output', 'iteration', 'previous', 'error'] as const;

/** The first regex literal RE2 cannot run (a backreference, lookaround), as its error; else undefined. */
function unsupportedRegex(node: unknown): string | undefined {
  if (Array.isArray(node)) {
    for (const inner of node) {
      const found = unsupportedRegex(inner);
      if (found) return found;
    }
    return undefined;
  }
  if (!node || typeof node !== 'object') return undefined;
  const { type, value } = node as { type?: unknown; value?: unknown };
  if (type === 'regex' && value instanceof RegExp) {
    try {
      new LinearRegExp(value);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
  for (const inner of Object.values(node)) {
    const found = typeof inner === 'object' ? unsupportedRegex(inner) : undefined;
    if (found) return found;
  }
  return undefined;
}

/** Whether an expression can read the context without naming its fields (`$`, `*`, `**`, `%`). */
function readsWholeContext(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(readsWholeContext);
  if (!node || typeof node !== 'object') return false;
  const { type, value } = node as { type?: unknown; value?: unknown };
  if (type === 'wildcard' || type === 'descendant' || type === 'parent' || (type === 'variable' && value === '')) return true;
  return Object.values(node).some((inner) => typeof inner === 'object' && readsWholeContext(inner));
}

/** How deep an expression's parse may nest: what compiling and evaluating it recurse over. */
const MAX_EXPRESSION_DEPTH = 64;

/** The depth of a JSONata parse, walked without recursion. */
function depthOf(ast: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[ast, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, depth] = next;
    if (!node || typeof node !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_EXPRESSION_DEPTH) return deepest;
    for (const inner of Object.values(node)) if (inner && typeof inner === 'object') pending.push([inner, depth + 1]);
  }
  return deepest;
}

/** Compiles `source`; a syntax error, or nesting past MAX_EXPRESSION_DEPTH, throws an ExpressionError naming `place`. */
/** What a definition sets for its expressions' evaluation. */
export interface ExpressionOptions {
  /** A step's `expression_timeout`: each evaluation's time budget, never above the deployment's. Default: the deployment's. */
  timeoutMs?: number | undefined;
}

export function compileExpression(source: string, place: string, options: ExpressionOptions = {}): Expression {
  let compiled: ReturnType<typeof jsonata>;
  try {
    compiled = jsonata(source);
  } catch (error) {
    const why = error instanceof RangeError ? 'it nests too deeply' : describe(error);
    throw new ExpressionError(place, `not a valid JSONata expression: ${why}`);
  }
  const ast = compiled.ast();
  // Objects and arrays in the parse count a level each, so the bound is in levels of the parse.
  if (depthOf(ast) > MAX_EXPRESSION_DEPTH) throw new ExpressionError(place, `nests too deeply: its parse is more than ${MAX_EXPRESSION_DEPTH} levels deep`);
  const regexProblem = unsupportedRegex(ast);
  if (regexProblem) throw new ExpressionError(place, regexProblem);
  const plain = compilePlain(ast);
  const named = new Map<string, boolean>();
  const names = (field: string) => {
    let found = named.get(field);
    if (found === undefined) named.set(field, (found = namesIn(ast, field)));
    return found;
  };
  // Only what the expression can read is sent to the sandbox.
  const fields = readsWholeContext(ast) ? CONTEXT_FIELDS : CONTEXT_FIELDS.filter(names);
  const viaJsonata = async (context: ExpressionContext) => {
    const sent: Record<string, unknown> = {};
    for (const field of fields) if (context[field] !== undefined) sent[field] = context[field];
    try {
      // User code runs in the sandbox, under its budget; its value comes back as JSON keeps it.
      return await sharedSandbox().evaluate(source, sent, options.timeoutMs);
    } catch (error) {
      if (error instanceof SandboxEvaluationError && error.budget) throw new ExpressionError(place, error.message, 'expression_budget_exceeded');
      throw new ExpressionError(place, error instanceof Error ? error.message : String(error));
    }
  };
  const now = (context: ExpressionContext): unknown => {
    if (!plain) return NOT_PLAIN;
    try {
      return plain(context);
    } catch {
      // NOT_PLAIN, or anything unforeseen: JSONata has the answer, or the error to give.
      return NOT_PLAIN;
    }
  };
  return {
    source,
    place,
    names,
    now,
    viaJsonata,
    evaluate(context) {
      const value = now(context);
      return value === NOT_PLAIN ? viaJsonata(context) : Promise.resolve(value);
    },
  };
}

/** JSONata truth: false, null, 0, "" and an absent value are false. */
export function isTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(isTruthy);
  return Boolean(value);
}

export interface ArgsEvaluator {
  /**
   * The arguments: at once when every expression has its value in plain JavaScript (no promise,
   * so no extra turn of the event loop), else a promise that asks JSONata for the others only.
   */
  evaluate(context: ExpressionContext): Record<string, unknown> | Promise<Record<string, unknown>>;
}

type Leaf = { path: string[]; kind: 'literal'; value: unknown } | { path: string[]; kind: 'expression'; expression: Expression };

function leavesOf(template: Record<string, unknown>, place: string, options: ExpressionOptions, path: string[] = []): { leaves: Leaf[]; objects: string[][] } {
  const leaves: Leaf[] = [];
  const objects: string[][] = [path];
  for (const [key, value] of Object.entries(template)) {
    const at = [...path, key];
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const inner = leavesOf(value as Record<string, unknown>, `${place}.${key}`, options, at);
      leaves.push(...inner.leaves);
      objects.push(...inner.objects);
    } else if (typeof value === 'string') leaves.push({ path: at, kind: 'expression', expression: compileExpression(value, `${place}.${key}`, options) });
    else leaves.push({ path: at, kind: 'literal', value });
  }
  return { leaves, objects };
}

function setAt(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (let i = 0; i < path.length - 1; i += 1) node = node[path[i] as string] as Record<string, unknown>;
  node[path[path.length - 1] as string] = value;
}

/**
 * The args template as one evaluator: literals as they are, each string an expression. Most
 * expressions are answered at once in plain JavaScript; only the others wait on JSONata.
 */
export function compileArgs(template: ArgsTemplate | undefined, place: string, options: ExpressionOptions = {}): ArgsEvaluator {
  if (template === undefined) return { evaluate: () => ({}) };
  if (typeof template === 'string') return wholeObject(compileExpression(template, place, options), place);
  const { leaves, objects } = leavesOf(template, place, options);
  const valuesNow = (context: ExpressionContext) => leaves.map((leaf) => (leaf.kind === 'literal' ? leaf.value : leaf.expression.now(context)));
  const nested = objects.slice(1);
  const build = (values: readonly unknown[]) => {
    const result: Record<string, unknown> = {};
    for (const path of nested) setAt(result, path, {});
    leaves.forEach((leaf, i) => {
      // An absent value leaves its argument out, so optional inputs stay optional.
      if (values[i] !== undefined) setAt(result, leaf.path, values[i]);
    });
    return result;
  };
  return {
    evaluate(context) {
      const values = valuesNow(context);
      if (!values.includes(NOT_PLAIN)) return build(values);
      // Each value is computed once: the plain ones are kept, JSONata gives the rest.
      return Promise.all(leaves.map((leaf, i) => (values[i] === NOT_PLAIN && leaf.kind === 'expression' ? leaf.expression.viaJsonata(context) : values[i]))).then(build);
    },
  };
}

function wholeObject(expression: Expression, place: string): ArgsEvaluator {
  const asArgs = (value: unknown): Record<string, unknown> => {
    if (value === undefined) return {};
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ExpressionError(place, `gave ${JSON.stringify(value)?.slice(0, 200)}, not an object of arguments`);
    return value as Record<string, unknown>;
  };
  return {
    evaluate(context) {
      const value = expression.now(context);
      return value === NOT_PLAIN ? expression.viaJsonata(context).then(asArgs) : asArgs(value);
    },
  };
}
