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
  const named = new Map<string, boolean>();
  return {
    source,
    place,
    names(field) {
      let found = named.get(field);
      if (found === undefined) named.set(field, (found = namesIn(ast, field)));
      return found;
    },
    async evaluate(context) {
      try {
        // Sequences carry JSONata's own markers as extra properties, which JSON leaves out.
        return (await compiled.evaluate(context)) as unknown;
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

/**
 * The args template as one evaluator. An object template becomes one JSONata object constructor,
 * so a step's arguments cost one evaluation however many there are; each string leaf is also
 * compiled alone first, so that a syntax error names its own place.
 */
export function compileArgs(template: ArgsTemplate | undefined, place: string): ArgsEvaluator {
  if (template === undefined) return { evaluate: async () => ({}) };
  const expression = typeof template === 'string' ? compileExpression(template, place) : compileExpression(templateSource(template, place), place);
  return {
    async evaluate(context) {
      const value = await expression.evaluate(context);
      if (value === undefined) return {};
      if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ExpressionError(place, `gave ${JSON.stringify(value)?.slice(0, 200)}, not an object of arguments`);
      return value as Record<string, unknown>;
    },
  };
}

/** JSONata source of a template: string leaves are expressions, other leaves JSON literals. */
function templateSource(value: unknown, place: string): string {
  if (typeof value === 'string') {
    compileExpression(value, place);
    return `(${value}\n)`;
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const fields = Object.entries(value).map(([key, inner]) => `${JSON.stringify(key)}: ${templateSource(inner, `${place}.${key}`)}`);
    return `{${fields.join(', ')}}`;
  }
  return JSON.stringify(value ?? null);
}
