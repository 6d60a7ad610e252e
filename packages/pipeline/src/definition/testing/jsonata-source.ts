/**
 * JSONata expressions as trees, for the property test of plain-jsonata.ts, and their source text.
 * The tree is what fast-check generates and shrinks; a variable in it is "the k-th variable in
 * scope where it stands", written out as one bound there (a block's `$x := …`, a step's `#$i`),
 * so that shrinking never leaves a variable unbound.
 */

export type Expr =
  | { kind: 'literal'; text: string }
  | { kind: 'name'; name: string }
  | { kind: 'context' }
  | { kind: 'variable'; pick: number }
  | { kind: 'path'; head: Expr; steps: Step[] }
  | { kind: 'filtered'; base: Expr; predicates: Expr[] }
  | { kind: 'block'; bindings: Expr[]; body: Expr }
  | { kind: 'condition'; form: '? :' | '?' | '?:' | '??'; condition: Expr; then: Expr; otherwise: Expr; parenthesized: boolean }
  | { kind: 'negation'; operand: Expr }
  | { kind: 'array'; items: Expr[] }
  | { kind: 'range'; from: Expr; to: Expr }
  | { kind: 'object'; pairs: [string, Expr][] }
  | { kind: 'binary'; operator: string; lhs: Expr; rhs: Expr; parenthesized: boolean }
  | { kind: 'call'; name: string; args: Expr[] }
  | { kind: 'regex'; text: string };

/** A path step after the first: a node, its predicates, and maybe a positional variable `#$i`. */
export interface Step {
  node: Expr;
  predicates: Expr[];
  positional: boolean;
}

/** The names a block binds, in order, and the positional variables of a path's steps. */
const BOUND_NAMES = ['x', 'y', 'z'] as const;
const POSITION_NAMES = ['i', 'j'] as const;

/** The expression as JSONata source, with `scope` the variables bound where it stands (innermost last). */
export function render(expr: Expr, scope: readonly string[] = []): string {
  switch (expr.kind) {
    case 'literal':
    case 'regex':
      return expr.text;
    case 'name':
      return expr.name;
    case 'context':
      return '$';
    case 'variable':
      return scope.length === 0 ? '$' : `$${scope[scope.length - 1 - (expr.pick % scope.length)]}`;
    case 'path':
      return renderPath(expr.head, expr.steps, scope);
    case 'filtered':
      return `${operand(expr.base, scope)}${expr.predicates.map((p) => `[${render(p, scope)}]`).join('')}`;
    case 'block':
      return renderBlock(expr.bindings, expr.body, scope);
    case 'condition':
      return renderCondition(expr, scope);
    case 'negation':
      return `-${operand(expr.operand, scope)}`;
    case 'array':
      return `[${expr.items.map((item) => render(item, scope)).join(', ')}]`;
    case 'range':
      return `[${render(expr.from, scope)}..${render(expr.to, scope)}]`;
    case 'object':
      return `{${expr.pairs.map(([key, value]) => `${JSON.stringify(key)}: ${render(value, scope)}`).join(', ')}}`;
    case 'binary': {
      const text = `${render(expr.lhs, scope)} ${expr.operator} ${render(expr.rhs, scope)}`;
      return expr.parenthesized ? `(${text})` : text;
    }
    case 'call':
      return `$${expr.name}(${expr.args.map((arg) => render(arg, scope)).join(', ')})`;
  }
}

/** An expression where a postfix (`[…]`, `.step`) or prefix (`-`) binds tighter than its operators: simple ones as they are, others in parentheses. */
function operand(expr: Expr, scope: readonly string[]): string {
  const text = render(expr, scope);
  const tight = ['literal', 'name', 'context', 'variable', 'block', 'array', 'range', 'object', 'call'].includes(expr.kind) || ((expr.kind === 'binary' || expr.kind === 'condition') && expr.parenthesized);
  return tight && !(expr.kind === 'literal' && text.startsWith('-')) ? text : `(${text})`;
}

function renderPath(head: Expr, steps: readonly Step[], scope: readonly string[]): string {
  let inScope = scope;
  let text = operand(head, inScope);
  let positions = 0;
  for (const step of steps) {
    const node = step.node.kind === 'name' || step.node.kind === 'context' || step.node.kind === 'variable' ? render(step.node, inScope) : operand(step.node, inScope);
    text += `.${node}${step.predicates.map((p) => `[${render(p, inScope)}]`).join('')}`;
    const name = POSITION_NAMES[positions];
    if (step.positional && name) {
      text += `#$${name}`;
      inScope = [...inScope, name];
      positions += 1;
    }
  }
  return text;
}

function renderBlock(bindings: readonly Expr[], body: Expr, scope: readonly string[]): string {
  let inScope = scope;
  const parts = bindings.map((value, i) => {
    const name = BOUND_NAMES[i % BOUND_NAMES.length] as string;
    const text = `$${name} := ${render(value, inScope)}`;
    inScope = [...inScope, name];
    return text;
  });
  return `(${[...parts, render(body, inScope)].join('; ')})`;
}

function renderCondition(expr: Extract<Expr, { kind: 'condition' }>, scope: readonly string[]): string {
  const condition = operand(expr.condition, scope);
  const then = render(expr.then, scope);
  const otherwise = render(expr.otherwise, scope);
  const text = expr.form === '?:' || expr.form === '??' ? `${condition} ${expr.form} ${otherwise}` : expr.form === '?' ? `${condition} ? ${then}` : `${condition} ? ${then} : ${otherwise}`;
  return expr.parenthesized ? `(${text})` : text;
}

