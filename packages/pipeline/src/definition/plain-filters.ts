/**
 * JSONata's filters (`[…]` after a node or a path step) for plain-jsonata.ts: an index, a list of
 * indexes, or a condition per item, as JSONata's evaluator applies them.
 */
import { isNumeric, notPlain, NOT_PLAIN, sequence, spend, truth, unwrap, Scope, type Eval, type Node } from './plain-values.js';

/** A filter: the items of its input it keeps (a sequence), or with `unwrapped` their unwrapped value. */
export type Filter = (input: unknown, scope: Scope) => unknown;
type CompileNode = (node: Node, vars: ReadonlySet<string>) => Eval | null;

/**
 * JSONata's filter `[…]`: an index (negative from the end), a list of indexes, or a condition per
 * item. With `unwrapped`, what it gives is unwrapped as a node's value is (the last predicate of a
 * node): one item by index is then given without making a sequence of it.
 */
function compileFilter(options: { predicate: Node; vars: ReadonlySet<string>; compile: CompileNode; unwrapped: boolean }): Filter | null {
  const { predicate, vars, compile, unwrapped } = options;
  if (predicate.type === 'number') {
    if (!isNumeric(predicate.value)) return null;
    const at = Math.floor(predicate.value as number);
    return (input) => {
      const items = Array.isArray(input) ? input : [input];
      const item = items[at < 0 ? items.length + at : at];
      if (item === undefined) return unwrapped ? undefined : sequence();
      if (Array.isArray(item)) return unwrapped ? unwrap(item) : item;
      return unwrapped ? item : sequence([item]);
    };
  }
  const test = compile(predicate, vars);
  if (!test) return null;
  // A predicate of literals alone (`[[0..49]]`) has one value for every item: made once. One that
  // reads no item (`$names[$i]`) has one value per filtering: made once there.
  const fixed = isConstant(predicate) ? valueOrNotPlain(() => test(undefined, new Scope())) : NOT_PLAIN;
  const itemFree = readsNoItem(predicate);
  return (input, scope) => {
    const items = Array.isArray(input) ? input : [input];
    const kept = sequence();
    const once = fixed !== NOT_PLAIN ? fixed : itemFree ? test(undefined, scope) : NOT_PLAIN;
    if (isNumeric(once)) {
      // One index for every item: the item there, once. JSONata keeps it even when it is nothing
      // (a missing field, filtered, is one item: nothing), and a later step then runs once on it.
      const i = Math.floor(once);
      const at = i < 0 ? items.length + i : i;
      if (unwrapped) return items[at];
      if (at >= 0 && at < items.length) kept.push(items[at]);
      return kept;
    }
    spend(items.length);
    items.forEach((item, index) => {
      const value = once === NOT_PLAIN ? test(item, scope) : once;
      if (isNumeric(value)) {
        const i = Math.floor(value);
        if ((i < 0 ? items.length + i : i) === index) kept.push(item);
      } else if (Array.isArray(value) && value.every((v) => typeof v === 'number')) {
        for (const n of value as number[]) {
          if (!isNumeric(n)) notPlain();
          const i = Math.floor(n);
          if ((i < 0 ? items.length + i : i) === index) kept.push(item);
        }
      } else if (truth(value)) kept.push(item);
    });
    return unwrapped ? unwrap(kept) : kept;
  };
}

/**
 * Whether `node` reads nothing of the item it is evaluated on: no path, no name, no `$`, and no
 * object constructor (which JSONata evaluates per item of a list it is given).
 */
function readsNoItem(node: unknown): boolean {
  if (Array.isArray(node)) return node.every(readsNoItem);
  if (!node || typeof node !== 'object') return true;
  const { type, value } = node as Node;
  if (type === 'path' || type === 'name' || (type === 'variable' && (value === '' || value === '$')) || (type === 'unary' && value === '{')) return false;
  return Object.values(node).every((inner) => typeof inner !== 'object' || readsNoItem(inner));
}

function isConstant(node: Node): boolean {
  if (node.predicate !== undefined || node.stages !== undefined) return false;
  if (node.type === 'string' || node.type === 'number' || node.type === 'value') return true;
  if (node.type === 'unary' && node.value === '[') return (node.expressions as Node[]).every(isConstant);
  if (node.type === 'unary' && node.value === '-') return isConstant(node.expression as Node);
  return node.type === 'binary' && isConstant(node.lhs as Node) && isConstant(node.rhs as Node);
}

function valueOrNotPlain(evaluate: () => unknown): unknown {
  try {
    return evaluate();
  } catch {
    return NOT_PLAIN;
  }
}

/**
 * The filters of a node or a path step, in order; null when one of them is not plain.
 * @param options.compile compiles a predicate (plain-jsonata.ts's compileNode)
 * @param options.unwrapLast the last filter's value is unwrapped (see compileFilter; default false)
 */
export function compileFilters(options: { stages: unknown; vars: ReadonlySet<string>; compile: CompileNode; unwrapLast?: boolean }): Filter[] | null {
  const { stages, vars, compile } = options;
  if (stages === undefined) return [];
  if (!Array.isArray(stages)) return null;
  const filters = (stages as Node[]).map((stage, i) => (stage.type === 'filter' ? compileFilter({ predicate: stage.expr as Node, vars, compile, unwrapped: options.unwrapLast === true && i === stages.length - 1 }) : null));
  return filters.every((f) => f !== null) ? (filters as Filter[]) : null;
}
