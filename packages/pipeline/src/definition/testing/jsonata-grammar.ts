/**
 * fast-check arbitraries of JSONata expressions from the grammar plain-jsonata.ts compiles (and a
 * little past it: wrong arities, a positional variable where the compiler takes none, so that its
 * refusals are exercised too), for the property test that holds it to JSONata.
 *
 * Two kinds of expression are mixed: any expression of the grammar, whose operands are of any
 * type (most of these meet JSONata's type errors), and expressions typed as text or number
 * (`$substring(title, -1)`, `input.n * 2`), so that functions and operators are compared on the
 * values they take. Names come from the alphabet of json-contexts.ts, so most paths reach a field.
 */
import fc from 'fast-check';
import { fieldKey, STRINGS } from './json-contexts.js';
import type { Expr, Step } from './jsonata-source.js';

/** Names of the context's fields: where a path starts. */
const TOP_FIELDS = ['input', 'steps', 'item', 'index', 'run_id'] as const;

/** The functions plain-functions.ts compiles, by their arities there (one more or fewer now and then). */
const FUNCTIONS: Readonly<Record<string, readonly number[]>> = {
  substring: [2, 3],
  join: [1, 2],
  replace: [3],
  lookup: [2],
  count: [1],
  exists: [1],
  length: [1],
  uppercase: [1],
  lowercase: [1],
  trim: [1],
  not: [1],
  boolean: [1],
};
/** Regex literals for $replace: linear (RE2) patterns, one of which matches the empty string. */
const REGEXES = ['/a/', '/[aeiou]/i', '/\\s+/', '/^\\s+|\\s+$/', '/x*/', '/🌊/', '/./', '/t(i)t/i'];
/** Binary operators, `&`, `=` and `+` the most often (the pipelines' own expressions use them most). */
const BINARY_OPERATORS = ['=', '=', '!=', 'in', '&', '&', '&', '+', '+', '-', '*', '/', '%', '<', '<=', '>', '>=', 'and', 'or'] as const;
const ARITHMETIC = ['+', '-', '*', '/', '%'] as const;
/** Numbers as written in an expression: past 15 significant digits JSONata's strings of them differ from JavaScript's. */
const NUMBERS = ['0', '1', '2', '3', '10', '2.5', '0.1', '1e21', '100', '1.5e300', '0.30000000000000004'];
/** Small integers, for a start, a length or an index: from either end, and one fraction. */
const SMALL_NUMBERS = ['0', '1', '2', '3', '-1', '-2', '-3', '1.5', '-0.5'];

const literalOf = (texts: readonly string[]) => fc.constantFrom(...texts).map((text): Expr => ({ kind: 'literal', text }));
const stringLiteral = literalOf(STRINGS.map((s) => JSON.stringify(s)));
const numberLiteral = literalOf(NUMBERS);
const smallNumber = literalOf(SMALL_NUMBERS);
const literal = fc.oneof(stringLiteral, numberLiteral, literalOf(['true', 'false', 'null']));
const fieldName = fieldKey.map((name): Expr => ({ kind: 'name', name }));
const topName = fc.constantFrom(...TOP_FIELDS).map((name): Expr => ({ kind: 'name', name }));
const variable = fc.nat(5).map((pick): Expr => ({ kind: 'variable', pick }));
const context = fc.constant<Expr>({ kind: 'context' });
const regex = fc.constantFrom(...REGEXES).map((text): Expr => ({ kind: 'regex', text }));
/** `input.title`, `steps.a.n`: names only, from the context's top. */
const fieldPath = fc
  .tuple(topName, fc.array(fieldName, { minLength: 1, maxLength: 2 }))
  .map(([head, names]): Expr => ({ kind: 'path', head, steps: names.map((node) => ({ node, predicates: [], positional: false })) }));

const call = (name: string, ...args: fc.Arbitrary<Expr>[]) => fc.tuple(...args).map((values): Expr => ({ kind: 'call', name, args: values }));
const binaryOf = (operators: readonly string[], lhs: fc.Arbitrary<Expr>, rhs: fc.Arbitrary<Expr>) =>
  fc.record({ operator: fc.constantFrom(...operators), lhs, rhs, parenthesized: fc.boolean() }).map((b): Expr => ({ kind: 'binary', ...b }));

type Ties = { expr: Expr; text: Expr; number: Expr; step: Step; predicate: Expr };

/**
 * Expressions of the grammar plain-jsonata.ts compiles, nested at most `maxDepth` deep.
 * @param maxDepth how deep composite expressions nest (default 4)
 */
export function expressionArbitrary(maxDepth = 4): fc.Arbitrary<Expr> {
  // One depth for every kind, so that text in a number in an expression counts three levels.
  const depth = { maxDepth, depthSize: 'small', withCrossShrink: true, depthIdentifier: 'jsonata-expression' } as const;
  return fc.letrec<Ties>((tie) => {
    const [expr, text, number] = [tie('expr'), tie('text'), tie('number')];
    return {
      text: fc.oneof(
        depth,
        { arbitrary: stringLiteral, weight: 4 },
        { arbitrary: fieldPath, weight: 2 },
        fc.oneof(call('substring', text, smallNumber), call('substring', text, smallNumber, fc.oneof(smallNumber, number))),
        fc.constantFrom('uppercase', 'lowercase', 'trim').chain((name) => call(name, text)),
        call('replace', text, fc.oneof({ arbitrary: regex, weight: 2 }, stringLiteral), stringLiteral),
        fc.oneof(call('join', fc.array(text, { maxLength: 3 }).map((items): Expr => ({ kind: 'array', items }))), call('join', fc.oneof(fieldPath, text), stringLiteral)),
        binaryOf(['&'], fc.oneof(text, number), fc.oneof(text, number)),
        fc.record({ condition: expr, then: text, otherwise: text }).map((c): Expr => ({ kind: 'condition', form: '? :', parenthesized: true, ...c })),
      ),
      number: fc.oneof(
        depth,
        { arbitrary: numberLiteral, weight: 2 },
        { arbitrary: smallNumber, weight: 2 },
        fieldPath,
        call('length', text),
        call('count', expr),
        { arbitrary: binaryOf(ARITHMETIC, number, number), weight: 2 },
        number.map((operand): Expr => ({ kind: 'negation', operand })),
      ),
      predicate: fc.oneof({ arbitrary: smallNumber, weight: 2 }, number, { arbitrary: expr, weight: 3 }),
      step: step(tie),
      expr: anyExpression(tie, depth),
    };
  }).expr;
}

/** A path step: mostly a field's name, sometimes with predicates or a positional variable. */
function step(tie: fc.LetrecTypedTie<Ties>): fc.Arbitrary<Step> {
  const expr = tie('expr');
  return fc.record({
    node: fc.oneof({ arbitrary: fieldName, weight: 8 }, context, variable, anyCall(expr), objectOf(expr), arrayOf(expr), blockOf(expr)),
    predicates: fc.oneof({ arbitrary: fc.constant<Expr[]>([]), weight: 3 }, fc.array(tie('predicate'), { maxLength: 2 })),
    positional: fc.oneof({ arbitrary: fc.constant(false), weight: 5 }, fc.constant(true)),
  });
}

function anyExpression(tie: fc.LetrecTypedTie<Ties>, depth: fc.OneOfConstraints): fc.Arbitrary<Expr> {
  const [expr, text, number] = [tie('expr'), tie('text'), tie('number')];
  const leaf = fc.oneof({ arbitrary: literal, weight: 4 }, { arbitrary: fieldName, weight: 3 }, { arbitrary: topName, weight: 3 }, variable, context);
  const head = fc.oneof({ arbitrary: topName, weight: 6 }, fieldName, context, variable, anyCall(expr), arrayOf(expr), blockOf(expr));
  return fc.oneof(
    depth,
    { arbitrary: leaf, weight: 4 },
    { arbitrary: fc.record({ head, steps: fc.array(tie('step'), { minLength: 1, maxLength: 3 }) }).map((p): Expr => ({ kind: 'path', ...p })), weight: 6 },
    { arbitrary: fc.record({ base: fc.oneof(topName, variable, arrayOf(expr), blockOf(expr), anyCall(expr)), predicates: fc.array(tie('predicate'), { minLength: 1, maxLength: 2 }) }).map((f): Expr => ({ kind: 'filtered', ...f })), weight: 2 },
    { arbitrary: blockOf(expr), weight: 2 },
    { arbitrary: fc.record({ form: fc.constantFrom('? :', '?', '?:', '??'), condition: expr, then: expr, otherwise: expr, parenthesized: fc.boolean() }).map((c): Expr => ({ kind: 'condition', ...c })), weight: 2 },
    expr.map((operand): Expr => ({ kind: 'negation', operand })),
    { arbitrary: arrayOf(expr), weight: 2 },
    fc.record({ from: fc.oneof(smallNumber, expr), to: fc.oneof(smallNumber, expr) }).map((r): Expr => ({ kind: 'range', ...r })),
    { arbitrary: objectOf(expr), weight: 2 },
    { arbitrary: anyBinary(expr, text, number), weight: 4 },
    { arbitrary: anyCall(expr), weight: 3 },
    { arbitrary: text, weight: 3 },
    { arbitrary: number, weight: 2 },
  );
}

const arrayOf = (expr: fc.Arbitrary<Expr>) => fc.array(expr, { maxLength: 3 }).map((items): Expr => ({ kind: 'array', items }));
const blockOf = (expr: fc.Arbitrary<Expr>) => fc.record({ bindings: fc.array(expr, { maxLength: 3 }), body: expr }).map((b): Expr => ({ kind: 'block', ...b }));
/** An object constructor with literal keys (a key twice is JSONata's alone, so keys are unique). */
const objectOf = (expr: fc.Arbitrary<Expr>) =>
  fc.uniqueArray(fc.tuple(fc.oneof(fieldKey, fc.constant('k')), expr), { maxLength: 3, selector: ([key]) => key }).map((pairs): Expr => ({ kind: 'object', pairs }));

/** A binary operation on operands of any type, often of the type its operator takes. */
function anyBinary(expr: fc.Arbitrary<Expr>, text: fc.Arbitrary<Expr>, number: fc.Arbitrary<Expr>): fc.Arbitrary<Expr> {
  const scalar = fc.oneof({ arbitrary: expr, weight: 2 }, number, text);
  return fc.constantFrom(...BINARY_OPERATORS).chain((operator) => {
    const operand = (ARITHMETIC as readonly string[]).includes(operator) ? fc.oneof(expr, number) : operator === 'and' || operator === 'or' ? expr : scalar;
    return binaryOf([operator], operand, operand);
  });
}

/** A call of a compiled function with arguments of any type, now and then with one too many or too few. */
function anyCall(expr: fc.Arbitrary<Expr>): fc.Arbitrary<Expr> {
  return fc
    .constantFrom(...Object.keys(FUNCTIONS))
    .chain((name) => {
      const arities = FUNCTIONS[name] ?? [1];
      const wrong = [Math.min(...arities) - 1, Math.max(...arities) + 1];
      return fc.oneof({ arbitrary: fc.constantFrom(...arities), weight: 9 }, fc.constantFrom(...wrong)).map((arity) => ({ name, arity }));
    })
    .chain(({ name, arity }) => call(name, ...Array.from({ length: arity }, (_, i) => argument(name, i, expr))));
}

/** An argument of a call, biased to the type the function takes there (any expression as often). */
function argument(name: string, position: number, expr: fc.Arbitrary<Expr>): fc.Arbitrary<Expr> {
  if (name === 'substring' && position > 0) return fc.oneof(smallNumber, expr);
  if (name === 'replace' && position === 1) return fc.oneof({ arbitrary: regex, weight: 2 }, stringLiteral, expr);
  if ((name === 'replace' && position === 2) || (name === 'join' && position === 1) || (name === 'lookup' && position === 1)) return fc.oneof(stringLiteral, expr);
  return expr;
}
