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
  // Plain JavaScript (no loop, no recursion) until ranges nest: past its work budget it is the sandbox's.
  { name: 'nested-ranges-in-args', place: 'steps.find.args.topic', definition: find({ args: { topic: '$string($count([0..999].([0..99999][$ < 0])))', depth: 1 } }) },
  { name: 'nested-ranges-in-map', place: 'steps.each.map', definition: { steps: { each: { tool: 'search_relevant_information', map: 'input.n ? [0..999].([0..99999][$ < 0])', args: { topic: 'item', depth: 1 } } } }, input: { n: 1 } },
  // A step may give its expressions less time than the deployment does.
  { name: 'loop-under-step-budget', place: 'steps.find.args.topic', definition: find({ args: { topic: LOOP, depth: 1 }, expression_timeout: '200ms' }) },
  { name: 'heap-in-args', place: 'steps.find.args.topic', definition: find({ args: { topic: '$string($count([1..900000].{"k": $string($), "v": [$, $, $, $]}))', depth: 1 } }) },
];

/** A regex that backtracks for seconds in JavaScript: with RE2's semantics its run completes at once. */
export const LINEAR_REGEX = {
  name: 'redos-in-args',
  definition: find({ args: { topic: "'matches: ' & $string($count($match(input.s, /^(a+)+$/)))", depth: 1 } }),
  input: { s: `${'a'.repeat(29)}b` },
};

/** A request an attacker with a valid key sends, and the status that refuses it (never a 5xx). */
export interface HostileRequest {
  name: string;
  method: 'GET' | 'PUT' | 'POST';
  path: string;
  contentType?: string;
  /** Made when sent: some are megabytes. */
  body?: () => string;
  status: number;
}

const nestedOneOf = (levels: number): Record<string, unknown> => {
  const defs: Record<string, unknown> = { l0: { type: 'string' } };
  for (let i = 1; i <= levels; i += 1) defs[`l${i}`] = { oneOf: [{ $ref: `#/$defs/l${i - 1}` }, { $ref: `#/$defs/l${i - 1}` }] };
  return { $defs: defs, $ref: `#/$defs/l${levels}` };
};
const definition = (name: string, extra: Record<string, unknown>) => JSON.stringify({ name, steps: { find: { tool: 'search_relevant_information', args: { topic: "'x'", depth: 1 } } }, ...extra });

export const HOSTILE_REQUESTS: readonly HostileRequest[] = [
  { name: '980 KB of nested YAML brackets', method: 'PUT', path: '/v1/pipelines/yaml-nest', contentType: 'application/yaml', body: () => `${'['.repeat(490_000)}${']'.repeat(490_000)}`, status: 400 },
  {
    name: '99 aliases to a 900 KB scalar',
    method: 'PUT',
    path: '/v1/pipelines/alias-bomb',
    contentType: 'application/yaml',
    body: () => `name: alias-bomb\ndescription: &big ${'x'.repeat(900_000)}\nsteps:\n  find:\n    tool: search_relevant_information\n    args:\n${Array.from({ length: 99 }, (_, i) => `      a${i}: *big`).join('\n')}\n`,
    status: 400,
  },
  { name: 'version 100000000000000', method: 'PUT', path: '/v1/pipelines/huge-version', contentType: 'application/json', body: () => definition('huge-version', { version: 100_000_000_000_000 }), status: 400 },
  { name: 'an input schema of 25 nested oneOf levels over $refs', method: 'PUT', path: '/v1/pipelines/one-of', contentType: 'application/json', body: () => definition('one-of', { input: nestedOneOf(25) }), status: 400 },
  { name: 'a 10 MB run input', method: 'POST', path: '/v1/stories', contentType: 'application/json', body: () => JSON.stringify({ topic: 'x', style: 'y'.repeat(10_000_000) }), status: 413 },
  { name: 'a body 100,000 levels deep', method: 'POST', path: '/v1/aceflow/runs', contentType: 'application/json', body: () => `{"project":{"name":"deep"},"analysis":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, status: 400 },
  { name: 'a listing of 200 runs', method: 'GET', path: '/v1/runs?limit=200', status: 200 },
];
