/**
 * Expressions as an attacker with a valid key writes them, each with the field that must be named
 * when its run fails with `expression_budget_exceeded`. Shared by the integration test and the
 * `hostile` scenario of `npm run chaos`.
 */

export interface HostileExpression {
  name: string;
  /** Where the definition has it: the failure's message names it. */
  place: string;
  /** The definition without its name. */
  definition: Record<string, unknown>;
  input?: Record<string, unknown>;
}

const LOOP = '($f := function($n){ $f($n+1) }; $f(0))';
const DEEP = '($f := function($n){ 1 + $f($n+1) }; $f(0))';
const find = (fields: Record<string, unknown>) => ({ steps: { find: { tool: 'search_relevant_information', args: { topic: "'x'", depth: 1 }, ...fields } } });

export const HOSTILE_EXPRESSIONS: readonly HostileExpression[] = [
  { name: 'loop-in-args', place: 'steps.find.args.topic', definition: find({ args: { topic: LOOP, depth: 1 } }) },
  { name: 'deep-in-args', place: 'steps.find.args.topic', definition: find({ args: { topic: DEEP, depth: 1 } }) },
  // A map over the input alone is evaluated when the run is created, in the orchestrator.
  { name: 'loop-in-map', place: 'steps.each.map', definition: { steps: { each: { tool: 'search_relevant_information', map: `input.n ? ${LOOP}`, args: { topic: 'item', depth: 1 } } } }, input: { n: 1 } },
  { name: 'huge-map', place: 'steps.each.map', definition: { steps: { each: { tool: 'search_relevant_information', map: '$map([1..3000000], function($v){ $string($v) })', args: { topic: 'item', depth: 1 } } } } },
  { name: 'loop-in-when', place: 'steps.find.when', definition: find({ when: LOOP }) },
  { name: 'loop-in-until', place: 'steps.find.repeat.until', definition: find({ repeat: { max: 3, until: LOOP } }) },
  { name: 'loop-in-output', place: 'output', definition: { ...find({}), output: LOOP } },
  { name: 'huge-string', place: 'steps.find.args.topic', definition: find({ args: { topic: '$pad("x", 400000000)', depth: 1 } }) },
  { name: 'heap-in-args', place: 'steps.find.args.topic', definition: find({ args: { topic: '$string($count([1..900000].{"k": $string($), "v": [$, $, $, $]}))', depth: 1 } }) },
];

/** A regex that backtracks for seconds in JavaScript: with RE2's semantics its run completes at once. */
export const LINEAR_REGEX = {
  name: 'redos-in-args',
  definition: find({ args: { topic: "'matches: ' & $string($count($match(input.s, /^(a+)+$/)))", depth: 1 } }),
  input: { s: `${'a'.repeat(29)}b` },
};
