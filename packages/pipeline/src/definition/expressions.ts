/**
 * JSONata expressions of a definition, compiled once per definition version. What an
 * expression can read is its context: `input`, `steps` (each finished step's output; a map
 * step's is the list of its branches' outputs), `run_id`, and where they apply `item` and
 * `index` (a map branch), `output` and `iteration` (a loop's `until`), `previous` (the output
 * of a loop's previous run).
 */
import jsonata from 'jsonata';
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
}

/** An expression that failed to parse or to evaluate, with the place it was written. */
export class ExpressionError extends Error {
  override name = 'ExpressionError';
  readonly place: string;
  constructor(place: string, message: string) {
    super(`${place}: ${message}`);
    this.place = place;
  }
}

export interface Expression {
  readonly source: string;
  readonly place: string;
  evaluate(context: ExpressionContext): Promise<unknown>;
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

function describe(error: unknown): string {
  if (error && typeof error === 'object' && 'message' in error) {
    const { message, position } = error as { message: string; position?: number };
    return position !== undefined ? `${message} (at character ${position})` : message;
  }
  return String(error);
}

/** Compiles `source`; a syntax error throws an ExpressionError naming `place`. */
export function compileExpression(source: string, place: string): Expression {
  let compiled: ReturnType<typeof jsonata>;
  try {
    compiled = jsonata(source);
  } catch (error) {
    throw new ExpressionError(place, `not a valid JSONata expression: ${describe(error)}`);
  }
  const ast = compiled.ast();
  return {
    source,
    place,
    names: (field) => namesIn(ast, field),
    async evaluate(context) {
      try {
        // JSONata answers sequences with extra markers; a JSON round trip gives plain values.
        const value: unknown = await compiled.evaluate(context);
        return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
      } catch (error) {
        throw new ExpressionError(place, describe(error));
      }
    },
  };
}

/** JSONata truth: false, null, 0, "" and an absent value are false. */
export function isTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(isTruthy);
  return Boolean(value);
}

export interface ArgsEvaluator {
  evaluate(context: ExpressionContext): Promise<Record<string, unknown>>;
}

/** The args template as one evaluator: string leaves are expressions, other leaves literals. */
export function compileArgs(template: ArgsTemplate | undefined, place: string): ArgsEvaluator {
  if (template === undefined) return { evaluate: async () => ({}) };
  if (typeof template === 'string') {
    const expression = compileExpression(template, place);
    return {
      async evaluate(context) {
        const value = await expression.evaluate(context);
        if (value === undefined) return {};
        if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ExpressionError(place, `gave ${JSON.stringify(value)?.slice(0, 200)}, not an object of arguments`);
        return value as Record<string, unknown>;
      },
    };
  }
  const build = compileTemplate(template, place);
  return { evaluate: async (context) => (await build(context)) as Record<string, unknown> };
}

type Build = (context: ExpressionContext) => Promise<unknown>;

function compileTemplate(value: unknown, place: string): Build {
  if (typeof value === 'string') {
    const expression = compileExpression(value, place);
    return (context) => expression.evaluate(context);
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const fields = Object.entries(value).map(([key, inner]) => [key, compileTemplate(inner, `${place}.${key}`)] as const);
    return async (context) => {
      const entries = await Promise.all(fields.map(async ([key, build]) => [key, await build(context)] as const));
      // An absent value leaves its argument out, so optional inputs stay optional.
      return Object.fromEntries(entries.filter(([, v]) => v !== undefined));
    };
  }
  return () => Promise.resolve(value);
}
