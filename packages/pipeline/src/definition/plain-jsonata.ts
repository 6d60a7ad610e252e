/**
 * JSONata expressions run as plain JavaScript, for the part of the language whose meaning is
 * simple: paths and filters, object and array constructors, blocks with variables, conditions,
 * comparisons, a few string functions. JSONata itself parses the expression; this compiles its
 * syntax tree into closures that follow JSONata's evaluator step for step (sequences, flattening,
 * a single match given as itself). Why: JSONata evaluates every node through a promise, which in
 * a busy worker costs about 100 µs per expression, as much as a whole step's Redis work.
 *
 * Anything outside that part is left to JSONata: a node this does not know makes the whole
 * expression JSONata's (compilePlain gives null), and a value the compiled code does not handle
 * the way JSONata would (a type JSONata rejects with an error, a zero-length regex match, …)
 * throws NOT_PLAIN, on which the caller evaluates that once with JSONata. plain-jsonata.test.ts
 * holds both to the same answers.
 */
import { compileFilters } from './plain-filters.js';
import { compileCall } from './plain-functions.js';
import { isCons, isNumeric, isSequence, lookup, markCons, NOT_PLAIN, notPlain, sequence, spend, startWork, truth, unwrap, ROOT_SCOPE, Scope, type Eval, type Node } from './plain-values.js';

export { NOT_PLAIN };

/** An expression compiled to plain JavaScript: its value in `context`, or NOT_PLAIN thrown. */
export type PlainExpression = (context: unknown) => unknown;

const MAY_GIVE_SEQUENCES = new Set(['path', 'name', 'variable', 'function']);

/** Compiles `node` (its predicates and the unwrapping every JSONata node gets included); null when it is not plain. */
function compileNode(node: Node, vars: ReadonlySet<string>): Eval | null {
  if (node.group !== undefined || node.keepArray || node.focus !== undefined || node.ancestor !== undefined || node.tuple) return null;
  const inner = compileBare(node, vars);
  const predicates = node.type === 'path' ? [] : compileFilters({ stages: node.predicate, vars, compile: compileNode, unwrapLast: true });
  if (!inner || !predicates) return null;
  // Only these can give a sequence of one or none; the others give what their parts gave, unwrapped already.
  if (predicates.length === 0) return MAY_GIVE_SEQUENCES.has(node.type) ? (input, scope) => unwrap(inner(input, scope)) : inner;
  // The last predicate unwraps what it gives.
  const [only] = predicates;
  if (predicates.length === 1 && only) return (input, scope) => only(inner(input, scope), scope);
  return (input, scope) => {
    let value = inner(input, scope);
    for (const filter of predicates) value = filter(value, scope);
    return value;
  };
}

function compileBare(node: Node, vars: ReadonlySet<string>): Eval | null {
  switch (node.type) {
    case 'string':
    case 'number':
    case 'value': {
      const value = node.value;
      return () => value;
    }
    case 'name': {
      const key = node.value as string;
      return (input) => lookup(input, key);
    }
    case 'variable':
      return compileVariable(node, vars);
    case 'path':
      return compilePath(node, vars);
    case 'block':
      return compileBlock(node, vars);
    case 'condition':
      return compileCondition(node, vars);
    case 'unary':
      return node.value === '[' ? compileArray(node, vars) : node.value === '{' ? compileObject(node, vars) : node.value === '-' ? compileNegation(node, vars) : null;
    case 'binary':
      return compileBinary(node, vars);
    case 'function':
      return compileCall(node, (argument) => compileNode(argument, vars), vars);
    default:
      return null;
  }
}

function compileVariable(node: Node, vars: ReadonlySet<string>): Eval | null {
  const name = node.value as string;
  if (name === '') return (input) => input;
  // Only variables bound by a block of the expression: others are JSONata's (functions, $$).
  return vars.has(name) ? (_input, scope) => scope.get(name) : null;
}

/** JSONata's evaluateStep: each item in, flattened out (one array from the last step is kept whole). */
function compileStep(step: Node, vars: ReadonlySet<string>, last: boolean): ((items: readonly unknown[], scope: Scope) => unknown[]) | null {
  const evaluate = compileNode(step, vars);
  const filters = compileFilters({ stages: step.stages, vars, compile: compileNode });
  if (!evaluate || !filters) return null;
  return (items, scope) => {
    const flat = sequence();
    // JSONata keeps one array from the last step whole when it is the step's only result.
    let results = 0;
    let first: unknown;
    spend(items.length);
    for (const item of items) {
      let value = evaluate(item, scope);
      for (const filter of filters) value = filter(value, scope);
      if (value === undefined) continue;
      if ((results += 1) === 1) first = value;
      if (Array.isArray(value) && !isCons(value)) for (const inner of value as unknown[]) flat.push(inner);
      else flat.push(value);
    }
    return last && results === 1 && Array.isArray(first) && !isSequence(first) ? first : flat;
  };
}

function compilePath(node: Node, vars: ReadonlySet<string>): Eval | null {
  if (node.keepSingletonArray || node.tuple) return null;
  const steps = node.steps as Node[];
  const indexAt = steps.findIndex((step) => step.index !== undefined);
  if (steps.some((step, i) => step.type === 'sort' || (step.tuple && i !== indexAt) || step.focus !== undefined || step.ancestor !== undefined)) return null;
  const absolute = steps[0]?.type === 'variable';
  const head = indexAt === -1 ? steps : steps.slice(0, indexAt);
  const compiled = head.map((step, i) => (i === 0 && step.consarray ? null : compileStep(step, vars, i === steps.length - 1)));
  const consFirst = steps[0]?.consarray ? compileNode(steps[0], vars) : undefined;
  if (consFirst === null || compiled.some((c, i) => c === null && !(i === 0 && consFirst))) return null;
  const rest = indexAt === -1 ? undefined : compileIndexed(steps.slice(indexAt), vars);
  if (rest === null) return null;
  const general: Eval = (input, scope) => {
    let items: unknown[] = Array.isArray(input) && !absolute ? input : sequence([input]);
    for (let i = 0; i < compiled.length; i++) {
      const step = compiled[i];
      const result = step ? step(items, scope) : (consFirst as Eval)(items, scope);
      // Only a first step JSONata's parser marks as an array constructor gives other than a list
      // (a block holding one can): a step after it walks that value as JSONata alone does.
      if (!Array.isArray(result) && result !== undefined && (i < compiled.length - 1 || rest)) notPlain();
      if (!Array.isArray(result) || result.length === 0) return result === undefined ? undefined : result;
      items = result;
    }
    return rest ? rest(items, scope) : items;
  };
  if (namesOnly(steps)) return objectWalk(steps.map((step) => step.value as string), general);
  const [first, ...names] = steps;
  const value = first && names.length > 0 && namesOnly(names) && first.stages === undefined && !first.consarray && (first.type === 'variable' || first.type === 'function') ? compileNode(first, vars) : null;
  return value ? headWalk({ head: value, names: names.map((step) => step.value as string), general, absolute }) : general;
}

const isPlainName = (step: Node) => step.type === 'name' && Object.keys(step).every((key) => key === 'type' || key === 'value' || key === 'position');
const namesOnly = (steps: readonly Node[]) => steps.every(isPlainName);

/**
 * A path of names (`input.topic`) read by walking objects, as JSONata's steps do when no list is
 * on the way; a list on the way (to map over) is left to the general path.
 */
function objectWalk(names: readonly string[], general: Eval): Eval {
  return (input, scope) => {
    let value = input;
    for (const name of names) {
      if (Array.isArray(value)) return general(input, scope);
      if (value === null || typeof value !== 'object' || !Object.hasOwn(value, name)) return undefined;
      value = (value as Record<string, unknown>)[name];
    }
    // A list from the data at the end is given whole (JSONata's last step keeps a single array).
    return isSequence(value) ? general(input, scope) : value;
  };
}

/**
 * A path of a value then names (`$lookup($outline, $name).title`, `$section.title`) read as
 * objectWalk reads one: the value once, then its fields; a list on the way is the general path's.
 */
function headWalk(options: { head: Eval; names: readonly string[]; general: Eval; absolute: boolean }): Eval {
  const { head, names, general, absolute } = options;
  return (input, scope) => {
    // JSONata evaluates a first step once per item of a list it is given (a variable once).
    if (!absolute && Array.isArray(input)) return general(input, scope);
    let value = head(input, scope);
    for (const name of names) {
      if (Array.isArray(value)) return general(input, scope);
      if (value === null || typeof value !== 'object' || !Object.hasOwn(value, name)) return undefined;
      value = (value as Record<string, unknown>)[name];
    }
    return isSequence(value) ? general(input, scope) : value;
  };
}

/**
 * From a step with a positional variable (`steps.write#$i.{…}`) on, JSONata carries a tuple per
 * item: every array is split into items and the variable holds each one's position in its step.
 */
function compileIndexed(steps: Node[], vars: ReadonlySet<string>): ((items: readonly unknown[], scope: Scope) => unknown[]) | null {
  const [first, ...after] = steps;
  if (!first || first.type !== 'name' || first.stages !== undefined) return null;
  const name = first.index as string;
  const inner = new Set([...vars, name]);
  const evaluateFirst = compileNode({ ...first, index: undefined, tuple: undefined }, vars);
  const later = after.map((step) => (step.stages === undefined && step.index === undefined ? compileNode(step, inner) : null));
  if (!evaluateFirst || later.some((c) => c === null)) return null;
  const next = later as Eval[];
  // What step `at - 1` gave, spread (a list is its items), through the steps from `at` on, into `out`.
  const follow = (value: unknown, at: number, bound: Scope, out: unknown[]): void => {
    if (value === undefined) return;
    const step = next[at];
    if (!Array.isArray(value)) {
      if (step) follow(step(value, bound), at + 1, bound, out);
      else out.push(value);
      return;
    }
    spend((value as unknown[]).length);
    for (const element of value as unknown[]) {
      if (step) follow(step(element, bound), at + 1, bound, out);
      else out.push(element);
    }
  };
  return (items, scope) => {
    const out = sequence();
    for (const item of items) {
      const value = evaluateFirst(item, scope);
      if (value === undefined) continue;
      const elements: readonly unknown[] = Array.isArray(value) ? value : [value];
      spend(elements.length);
      for (let position = 0; position < elements.length; position++) {
        const bound = new Scope(scope, name, position);
        const element = elements[position];
        const step = next[0];
        if (step) follow(step(element, bound), 1, bound, out);
        else out.push(element);
      }
    }
    return out;
  };
}

function compileBlock(node: Node, vars: ReadonlySet<string>): Eval | null {
  const inner = new Set(vars);
  const expressions: Eval[] = [];
  for (const expression of node.expressions as Node[]) {
    const compiled = expression.type === 'bind' ? compileBind(expression, inner) : compileNode(expression, inner);
    if (!compiled) return null;
    expressions.push(compiled);
  }
  return (input, scope) => {
    const frame = new Scope(scope);
    let value: unknown;
    for (const expression of expressions) value = expression(input, frame);
    return value;
  };
}

/** `$name := value`, at the top of a block only; the name is known to what follows it. */
function compileBind(node: Node, vars: Set<string>): Eval | null {
  const lhs = node.lhs as Node;
  if (lhs.type !== 'variable' || lhs.predicate !== undefined || lhs.value === '') return null;
  const value = compileNode(node.rhs as Node, vars);
  if (!value) return null;
  const name = lhs.value as string;
  vars.add(name);
  return (input, scope) => scope.set(name, value(input, scope));
}

function compileCondition(node: Node, vars: ReadonlySet<string>): Eval | null {
  const condition = compileNode(node.condition as Node, vars);
  const then = compileNode(node.then as Node, vars);
  const otherwise = node.else === undefined ? undefined : compileNode(node.else as Node, vars);
  if (!condition || !then || otherwise === null) return null;
  return (input, scope) => (truth(condition(input, scope)) ? then(input, scope) : otherwise?.(input, scope));
}

function compileNegation(node: Node, vars: ReadonlySet<string>): Eval | null {
  const operand = compileNode(node.expression as Node, vars);
  if (!operand) return null;
  return (input, scope) => {
    const value = operand(input, scope);
    return value === undefined ? undefined : isNumeric(value) ? -value : notPlain();
  };
}

function compileArray(node: Node, vars: ReadonlySet<string>): Eval | null {
  const items = (node.expressions as Node[]).map((item) => ({ evaluate: compileNode(item, vars), nested: item.value === '[' }));
  if (items.some((item) => !item.evaluate)) return null;
  const cons = Boolean(node.consarray);
  return (input, scope) => {
    const array: unknown[] = [];
    for (const item of items) {
      const value = (item.evaluate as Eval)(input, scope);
      if (value === undefined) continue;
      if (!item.nested && Array.isArray(value)) {
        spend(value.length);
        for (const inner of value as unknown[]) array.push(inner);
      }
      else array.push(value);
    }
    if (cons) markCons(array);
    return array;
  };
}

/**
 * An object constructor with literal keys over one item (grouping over several is JSONata's).
 * A `__proto__` key is JSONata's too: assigned here it would set the object's prototype, where
 * JSONata gives the object a field of that name.
 */
function compileObject(node: Node, vars: ReadonlySet<string>): Eval | null {
  const pairs = (node.lhs as [Node, Node][]).map(([key, value]) => ({ key: key.type === 'string' && key.value !== '__proto__' ? (key.value as string) : null, value: compileNode(value, vars) }));
  if (pairs.some((p) => p.key === null || !p.value) || new Set(pairs.map((p) => p.key)).size !== pairs.length) return null;
  return (input, scope) => {
    if (Array.isArray(input)) notPlain();
    const object: Record<string, unknown> = {};
    for (const pair of pairs) {
      const value = (pair.value as Eval)(input, scope);
      if (value !== undefined) object[pair.key as string] = value;
    }
    return object;
  };
}

const comparable = (v: unknown) => v === undefined || typeof v === 'string' || isNumeric(v);
const primitive = (v: unknown) => v === null || typeof v === 'string' || typeof v === 'boolean' || isNumeric(v);
/** JSONata's arithmetic: numbers or nothing (which gives nothing); other types are its errors. */
const arithmetic =
  (op: (a: number, b: number) => number) =>
  (l: unknown, r: unknown): unknown => {
    if ((l !== undefined && !isNumeric(l)) || (r !== undefined && !isNumeric(r))) notPlain();
    if (l === undefined || r === undefined) return undefined;
    const value = op(l as number, r as number);
    return Number.isFinite(value) ? value : notPlain();
  };

const BINARY: Record<string, (lhs: unknown, rhs: unknown) => unknown> = {
  '=': (l, r) => (l === undefined || r === undefined ? false : primitive(l) && primitive(r) ? l === r : notPlain()),
  '!=': (l, r) => (l === undefined || r === undefined ? false : primitive(l) && primitive(r) ? l !== r : notPlain()),
  in: (l, r) => (l === undefined || r === undefined ? false : (Array.isArray(r) ? r : [r]).some((v) => v === l)),
  '&': (l, r) => (l === undefined || typeof l === 'string') && (r === undefined || typeof r === 'string') ? `${l ?? ''}${r ?? ''}` : notPlain(),
  '+': arithmetic((a, b) => a + b),
  '-': arithmetic((a, b) => a - b),
  '*': arithmetic((a, b) => a * b),
  '/': arithmetic((a, b) => a / b),
  '%': arithmetic((a, b) => a % b),
  '<': (l, r) => compare(l, r, (a, b) => a < b),
  '<=': (l, r) => compare(l, r, (a, b) => a <= b),
  '>': (l, r) => compare(l, r, (a, b) => a > b),
  '>=': (l, r) => compare(l, r, (a, b) => a >= b),
  '..': (l, r) => {
    if ((l !== undefined && !Number.isInteger(l)) || (r !== undefined && !Number.isInteger(r))) notPlain();
    if (l === undefined || r === undefined || (l as number) > (r as number)) return undefined;
    // JSONata counts from one end to the other by one: past 2^53 its count stops growing and never ends.
    if (!Number.isSafeInteger(l) || !Number.isSafeInteger(r)) notPlain();
    const size = (r as number) - (l as number) + 1;
    spend(size);
    return size > 1e6 ? notPlain() : Array.from({ length: size }, (_, i) => (l as number) + i);
  },
};

function compare(l: unknown, r: unknown, test: (a: string | number, b: string | number) => boolean): unknown {
  if (!comparable(l) || !comparable(r)) notPlain();
  if (l === undefined || r === undefined) return undefined;
  return typeof l === typeof r ? test(l as string | number, r as string | number) : notPlain();
}

function compileBinary(node: Node, vars: ReadonlySet<string>): Eval | null {
  const lhs = compileNode(node.lhs as Node, vars);
  const rhs = compileNode(node.rhs as Node, vars);
  if (!lhs || !rhs) return null;
  const booleanOf = (v: unknown) => truth(v) === true;
  if (node.value === 'and') return (input, scope) => booleanOf(lhs(input, scope)) && booleanOf(rhs(input, scope));
  if (node.value === 'or') return (input, scope) => booleanOf(lhs(input, scope)) || booleanOf(rhs(input, scope));
  const apply = BINARY[node.value as string];
  return apply ? (input, scope) => apply(lhs(input, scope), rhs(input, scope)) : null;
}

/** The expression with syntax tree `ast` as plain JavaScript, or null when part of it is JSONata's alone. */
export function compilePlain(ast: unknown): PlainExpression | null {
  const compiled = compileNode(ast as Node, new Set());
  if (!compiled) return null;
  return (context) => {
    // JSONata treats an array given as the input as one item.
    if (Array.isArray(context)) notPlain();
    startWork();
    return compiled(context, ROOT_SCOPE);
  };
}
