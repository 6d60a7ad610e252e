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

/** A dotted path such as `input.topic` or `item`: read without JSONata when no list is on the way. */
const SIMPLE_PATH = /^\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*$/;
const QUOTED = /^\s*'([^'\\]*)'\s*$/;
const KEYWORDS = new Set(['true', 'false', 'null', 'and', 'or', 'in']);

/** `$lookup(a.b, c)` with two dotted paths, e.g. `$lookup(steps.outline.sections, item)`. */
const LOOKUP = /^\s*\$lookup\(\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*,\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\)\s*$/;

type Leaf =
  | { path: string[]; value: unknown; kind: 'literal' }
  | { path: string[]; kind: 'path'; names: string[]; source: string }
  | { path: string[]; kind: 'lookup'; object: string[]; key: string[]; source: string }
  | { path: string[]; kind: 'expression'; source: string };

function leavesOf(template: Record<string, unknown>, place: string, path: string[] = []): { leaves: Leaf[]; objects: string[][] } {
  const leaves: Leaf[] = [];
  const objects: string[][] = [path];
  for (const [key, value] of Object.entries(template)) {
    const at = [...path, key];
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const inner = leavesOf(value as Record<string, unknown>, `${place}.${key}`, at);
      leaves.push(...inner.leaves);
      objects.push(...inner.objects);
    } else if (typeof value !== 'string') leaves.push({ path: at, kind: 'literal', value });
    else {
      compileExpression(value, `${place}.${key}`); // a syntax error names its own place
      const quoted = QUOTED.exec(value);
      const dotted = SIMPLE_PATH.exec(value)?.[1];
      const lookup = LOOKUP.exec(value);
      if (quoted) leaves.push({ path: at, kind: 'literal', value: quoted[1] });
      else if (dotted && !KEYWORDS.has(dotted)) leaves.push({ path: at, kind: 'path', names: dotted.split('.'), source: value });
      else if (lookup?.[1] && lookup[2] && !KEYWORDS.has(lookup[1]) && !KEYWORDS.has(lookup[2])) leaves.push({ path: at, kind: 'lookup', object: lookup[1].split('.'), key: lookup[2].split('.'), source: value });
      else leaves.push({ path: at, kind: 'expression', source: value });
    }
  }
  return { leaves, objects };
}

const NOT_PLAIN = Symbol('not plain');

/** A dotted path read in plain JavaScript; a list on the way is JSONata's to map over. */
function readPath(context: ExpressionContext, names: readonly string[]): unknown {
  let value: unknown = context;
  for (const name of names) {
    if (Array.isArray(value)) return NOT_PLAIN;
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[name];
  }
  return value;
}

/** `$lookup(object, key)` in plain JavaScript when both are plain (an object, a string key, a value that is no list); else JSONata's. */
function readLookup(context: ExpressionContext, leaf: { object: readonly string[]; key: readonly string[] }): unknown {
  const object = readPath(context, leaf.object);
  const key = readPath(context, leaf.key);
  if (object === undefined || object === null) return object === undefined && typeof key === 'string' ? undefined : NOT_PLAIN;
  if (typeof object !== 'object' || Array.isArray(object) || typeof key !== 'string' || !Object.hasOwn(object, key)) return NOT_PLAIN;
  const value = (object as Record<string, unknown>)[key];
  return Array.isArray(value) ? NOT_PLAIN : value;
}

function setAt(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[path[path.length - 1] as string] = value;
}

/**
 * The args template as one evaluator. Plain paths (`input.topic`, `item`), `$lookup` of a plain
 * path by a plain path, and quoted strings are read without JSONata, since an evaluation costs tens of microseconds; only the other
 * expressions (and a path with a list on its way, which JSONata maps over) are evaluated.
 */
export function compileArgs(template: ArgsTemplate | undefined, place: string): ArgsEvaluator {
  if (template === undefined) return { evaluate: async () => ({}) };
  if (typeof template === 'string') return wholeObject(compileExpression(template, place), place);
  const { leaves, objects } = leavesOf(template, place);
  const computed = leaves.filter((leaf) => leaf.kind !== 'literal') as Exclude<Leaf, { kind: 'literal' }>[];
  const expressions = computed.map((leaf) => compileExpression(leaf.source, `${place}.${leaf.path.join('.')}`));
  return {
    async evaluate(context) {
      const values = await Promise.all(
        computed.map((leaf, i) => {
          const plain = leaf.kind === 'path' ? readPath(context, leaf.names) : leaf.kind === 'lookup' ? readLookup(context, leaf) : NOT_PLAIN;
          return plain === NOT_PLAIN ? (expressions[i] as Expression).evaluate(context) : plain;
        }),
      );
      const result: Record<string, unknown> = {};
      for (const path of objects.slice(1)) setAt(result, path, {});
      leaves.forEach((leaf) => {
        const value = leaf.kind === 'literal' ? leaf.value : values[computed.indexOf(leaf as Exclude<Leaf, { kind: 'literal' }>)];
        // An absent value leaves its argument out, so optional inputs stay optional.
        if (value !== undefined) setAt(result, leaf.path, value);
      });
      return result;
    },
  };
}

function wholeObject(expression: Expression, place: string): ArgsEvaluator {
  return {
    async evaluate(context) {
      const value = await expression.evaluate(context);
      if (value === undefined) return {};
      if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ExpressionError(place, `gave ${JSON.stringify(value)?.slice(0, 200)}, not an object of arguments`);
      return value as Record<string, unknown>;
    },
  };
}
