/**
 * The JSONata functions plain-jsonata.ts runs itself, each as JSONata's own implementation has
 * it, called with all its arguments (a call that leaves one out to take the context is
 * JSONata's). An argument of a type JSONata's signature check would refuse throws NOT_PLAIN, so
 * that JSONata raises its own error.
 */
import { isNumeric, lookup, notPlain, spend, truth, type Eval, type Node } from './plain-values.js';
import { LinearRegExp } from './linear-regex.js';

type Apply = (args: unknown[]) => unknown;

const string = (value: unknown): string | undefined => (value === undefined || typeof value === 'string' ? value : notPlain());
const number = (value: unknown): number => (isNumeric(value) ? value : notPlain());
const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/;

/** JSONata's $substring: counts code points; a negative start counts from the end. */
function substring(str: string, start: number, length: number | undefined): string {
  // Nothing to cut (the string has no more code points than units): as it is, unscanned.
  if (start === 0 && (length === undefined || length >= str.length)) return str;
  // Without surrogate pairs a code point is a UTF-16 unit, and String#slice is Array#slice.
  const units = !SURROGATE_PAIR.test(str);
  const chars = units ? str : Array.from(str);
  const size = chars.length;
  const from = size + start < 0 ? 0 : start;
  if (length !== undefined && length <= 0) return '';
  const end = length === undefined ? undefined : from >= 0 ? from + length : size + from + length;
  return units ? str.slice(from, end) : (chars as string[]).slice(from, end).join('');
}

/** JSONata's $trim: runs of whitespace become one space, and none is left at either end. */
function trim(str: string): string {
  let result = str.replace(/[ \t\n\r]+/gm, ' ');
  if (result.startsWith(' ')) result = result.substring(1);
  if (result.endsWith(' ')) result = result.substring(0, result.length - 1);
  return result;
}

/** JSONata's $replace of every match, with a replacement free of `$` substitutions. */
function replace(str: string, pattern: string | LinearRegExp, replacement: string): string {
  if (replacement.includes('$') || pattern === '') notPlain();
  if (typeof pattern === 'string') return str.split(pattern).join(replacement);
  // The pattern is the expression's own regex (JSONata's parser makes it global), used here one call at a time.
  const re = pattern.global ? pattern : notPlain();
  let result = '';
  let position = 0;
  re.lastIndex = 0;
  for (let match = re.exec(str); match; match = re.lastIndex >= str.length ? null : re.exec(str)) {
    // JSONata refuses a pattern that matches nothing (it would never move on).
    if (match[0] === '') notPlain();
    result += str.substring(position, match.index) + replacement;
    position = match.index + match[0].length;
  }
  return result + str.substring(position);
}

function join(strs: unknown, separator: unknown): string | undefined {
  // JSONata checks every argument's type, even when the first is missing.
  const glue = string(separator) ?? '';
  if (strs === undefined) return undefined;
  if (Array.isArray(strs)) spend(strs.length);
  const list = typeof strs === 'string' ? [strs] : Array.isArray(strs) && strs.every((s) => typeof s === 'string') ? (strs as string[]) : notPlain();
  return list.join(glue);
}

/** Each function by name: its arities compiled here and what it does with its arguments. */
const FUNCTIONS: Record<string, { arities: readonly number[]; apply: Apply }> = {
  substring: {
    arities: [2, 3],
    apply: ([str, start, length]) => {
      const s = string(str);
      const from = number(start);
      const size = length === undefined ? undefined : number(length);
      return s === undefined ? undefined : substring(s, from, size);
    },
  },
  join: { arities: [1, 2], apply: ([strs, separator]) => join(strs, separator) },
  replace: {
    arities: [3],
    apply: ([str, pattern, replacement]) => {
      const s = string(str);
      const p = pattern instanceof LinearRegExp ? pattern : typeof pattern === 'string' ? pattern : notPlain();
      const r = typeof replacement === 'string' ? replacement : notPlain();
      return s === undefined ? undefined : replace(s, p, r);
    },
  },
  lookup: { arities: [2], apply: ([object, key]) => lookup(object, typeof key === 'string' ? key : notPlain()) },
  count: { arities: [1], apply: ([list]) => (list === undefined ? 0 : Array.isArray(list) ? list.length : 1) },
  exists: { arities: [1], apply: ([value]) => value !== undefined },
  length: {
    arities: [1],
    apply: ([str]) => {
      const s = string(str);
      return s === undefined ? undefined : SURROGATE_PAIR.test(s) ? Array.from(s).length : s.length;
    },
  },
  uppercase: { arities: [1], apply: ([str]) => string(str)?.toUpperCase() },
  lowercase: { arities: [1], apply: ([str]) => string(str)?.toLowerCase() },
  trim: {
    arities: [1],
    apply: ([str]) => {
      const s = string(str);
      return s === undefined ? undefined : trim(s);
    },
  },
  not: { arities: [1], apply: ([value]) => (value === undefined ? undefined : !truth(value)) },
  boolean: { arities: [1], apply: ([value]) => truth(value) },
};

/**
 * A call of one of FUNCTIONS with all its arguments, or null. `compileArgument` compiles an
 * argument in the caller's scope; `bound` are the variables the expression binds (a call of
 * one of those is not a built-in).
 */
export function compileCall(node: Node, compileArgument: (node: Node) => Eval | null, bound: ReadonlySet<string>): Eval | null {
  const procedure = node.procedure as Node;
  const name = procedure.type === 'variable' && procedure.predicate === undefined ? (procedure.value as string) : undefined;
  const fn = name && !bound.has(name) ? FUNCTIONS[name] : undefined;
  const args = node.arguments as Node[];
  if (!fn || !fn.arities.includes(args.length)) return null;
  // A regex literal is a pattern only where $replace takes one; it runs in linear time, as in the sandbox.
  const compiled = args.map((arg, i) => (arg.type === 'regex' && name === 'replace' && i === 1 && arg.value instanceof RegExp ? constant(new LinearRegExp(arg.value)) : compileArgument(arg)));
  if (compiled.some((c) => c === null)) return null;
  const evaluators = compiled as Eval[];
  return (input, scope) => fn.apply(evaluators.map((evaluate) => evaluate(input, scope)));
}

const constant =
  (value: unknown): Eval =>
  () =>
    value;
