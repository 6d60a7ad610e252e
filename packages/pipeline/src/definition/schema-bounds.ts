/**
 * What a definition's JSON Schema (`input`, `output_schema`) may cost, judged before ajv sees it:
 * its size and nesting, its patterns (RE2 must run them: linear-regex.ts), its `$ref`s (into the
 * schema itself, never round in a circle at one place of the input), and an estimate of how many
 * subschemas validating one value of an input can apply. `allOf`/`anyOf`/`oneOf`/`not`/`if` and
 * `$ref` apply several subschemas at the same place, and through `$ref`s nested ones multiply:
 * ten levels of `oneOf: [$ref, $ref]` apply 1,024. That count is estimated level by level of the
 * input (schema-graph.ts) and refused past MAX_SCHEMA_COST.
 */
import { LinearRegExp } from './linear-regex.js';
import { MAX_PATTERN_CHARS, MAX_PATTERN_PROGRAM, MAX_SCHEMA_COST, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES } from './limits.js';
import type { DefinitionProblem } from './problems.js';
import { collectSchemaGraph, sameLocationOrder, type SchemaNode } from './schema-graph.js';

/** Nesting levels of an input the estimate follows: the API's JSON bodies nest at most 64 (http-kit's MAX_JSON_DEPTH). */
const INPUT_LEVELS = 64;

const dotted = (place: string, path: readonly string[]) => [place, ...path].join('.');

/** Values and nesting of the schema as JSON, walked without recursion; the first bound broken. */
function sizeProblem(schema: unknown, place: string): DefinitionProblem | undefined {
  const pending: { value: unknown; depth: number; path: string[] }[] = [{ value: schema, depth: 1, path: [] }];
  let count = 0;
  for (let next = pending.pop(); next; next = pending.pop()) {
    count += 1;
    if (count > MAX_SCHEMA_NODES) return { path: place, message: `holds more than ${MAX_SCHEMA_NODES} values; a schema holds at most ${MAX_SCHEMA_NODES}` };
    if (!next.value || typeof next.value !== 'object') continue;
    if (next.depth > MAX_SCHEMA_DEPTH) return { path: dotted(place, next.path), message: `nests deeper than ${MAX_SCHEMA_DEPTH} levels, the most a schema may` };
    for (const [key, child] of Object.entries(next.value)) pending.push({ value: child, depth: next.depth + 1, path: [...next.path, key] });
  }
  return undefined;
}

/** A pattern RE2 runs, short enough and cheap enough; else what is wrong with it. */
export function patternProblem(pattern: unknown): string | undefined {
  if (typeof pattern !== 'string') return 'a pattern is a string';
  if (pattern.length > MAX_PATTERN_CHARS) return `a pattern is at most ${MAX_PATTERN_CHARS} characters (this one has ${pattern.length})`;
  try {
    const size = new LinearRegExp(pattern, 'u').programSize;
    if (size > MAX_PATTERN_PROGRAM) return `this pattern is too costly to run (RE2 program size ${size}; at most ${MAX_PATTERN_PROGRAM})`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  return undefined;
}

function patternProblems(nodes: readonly SchemaNode[], place: string): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  for (const node of nodes) {
    if (typeof node.schema !== 'object') continue;
    const { pattern, patternProperties } = node.schema;
    if (pattern !== undefined) {
      const problem = patternProblem(pattern);
      if (problem) problems.push({ path: dotted(place, [...node.path, 'pattern']), message: problem });
    }
    if (patternProperties && typeof patternProperties === 'object') {
      for (const key of Object.keys(patternProperties)) {
        const problem = patternProblem(key);
        if (problem) problems.push({ path: dotted(place, [...node.path, 'patternProperties', key]), message: problem });
      }
    }
  }
  return problems;
}

const add = (counts: Map<SchemaNode, number>, node: SchemaNode, count: number) => counts.set(node, Math.min(MAX_SCHEMA_COST + 1, (counts.get(node) ?? 0) + count));

/**
 * The subschemas applied at one place when `entered` is: it, then what each applies in turn.
 * Only what it reaches is visited, in the order where each comes before what it applies.
 */
function closureOf(entered: SchemaNode, rank: ReadonlyMap<SchemaNode, number>): Map<SchemaNode, number> {
  const reached = new Set([entered]);
  const pending = [entered];
  for (let node = pending.pop(); node; node = pending.pop()) {
    for (const next of node.same) {
      if (reached.has(next)) continue;
      reached.add(next);
      pending.push(next);
    }
  }
  const counts = new Map([[entered, 1]]);
  for (const node of [...reached].sort((a, b) => (rank.get(a) ?? 0) - (rank.get(b) ?? 0))) {
    const count = counts.get(node);
    if (count) for (const next of node.same) add(counts, next, count);
  }
  return counts;
}

/** Counts are linear in what is entered: each subschema's closure is worked out once, then scaled. */
function closures(rank: ReadonlyMap<SchemaNode, number>): (entered: ReadonlyMap<SchemaNode, number>) => Map<SchemaNode, number> {
  const known = new Map<SchemaNode, Map<SchemaNode, number>>();
  return (entered) => {
    const counts = new Map<SchemaNode, number>();
    for (const [node, count] of entered) {
      let closure = known.get(node);
      if (!closure) known.set(node, (closure = closureOf(node, rank)));
      for (const [applied, times] of closure) add(counts, applied, count * times);
    }
    return counts;
  };
}

type Applied = (entered: ReadonlyMap<SchemaNode, number>) => Map<SchemaNode, number>;

/**
 * What may be applied one level down the input: for each key (or index) a member may have, what
 * applies to any member plus what that key names. A member no key names gets no more than one
 * that some key names, so it needs no estimate of its own.
 */
function appliedBelow(counts: ReadonlyMap<SchemaNode, number>, applied: Applied): Map<SchemaNode, number>[] {
  const anyMember = new Map<SchemaNode, number>();
  const byKey = new Map<string, Map<SchemaNode, number>>();
  for (const [node, count] of counts) {
    for (const child of node.anyChild) add(anyMember, child, count);
    for (const [key, children] of node.keyedChildren) {
      const bucket = byKey.get(key) ?? new Map<SchemaNode, number>();
      byKey.set(key, bucket);
      for (const child of children) add(bucket, child, count);
    }
  }
  if (byKey.size === 0) return anyMember.size > 0 ? [applied(anyMember)] : [];
  return [...byKey.values()].map((bucket) => {
    const entered = new Map(anyMember);
    for (const [child, count] of bucket) add(entered, child, count);
    return applied(entered);
  });
}

const signature = (counts: ReadonlyMap<SchemaNode, number>) => [...counts].map(([node, count]) => `${node.id}:${count}`).sort().join(',');

/** Distinct sets of subschemas the estimate may follow down an input before it gives up. */
const MAX_ESTIMATE_STEPS = 5_000;

/**
 * The estimate: from the input itself, down each member by its key, level by level, the count of
 * subschemas applied at each place. A set of counts met before (a recursive schema that does not
 * grow comes back to one) adds nothing new; level by level, each is met first where it is least
 * deep, so each is followed once.
 */
function costProblem(root: SchemaNode, order: readonly SchemaNode[], place: string): DefinitionProblem | undefined {
  const applied = closures(new Map(order.map((node, i) => [node, i])));
  const start = applied(new Map([[root, 1]]));
  const seen = new Set([signature(start)]);
  let level = 0;
  for (let frontier = [start]; frontier.length > 0 && level <= INPUT_LEVELS; level += 1) {
    const next: Map<SchemaNode, number>[] = [];
    for (const counts of frontier) {
      let total = 0;
      for (const count of counts.values()) total += count;
      if (total > MAX_SCHEMA_COST) {
        const where = level === 0 ? 'to an input' : `to a value nested ${level} level${level > 1 ? 's' : ''} deep in an input`;
        return { path: place, message: `validating could apply more than ${MAX_SCHEMA_COST} subschemas ${where} (allOf/anyOf/oneOf/not/if through $ref multiply); a schema applies at most ${MAX_SCHEMA_COST} to one value` };
      }
      for (const below of appliedBelow(counts, applied)) {
        const key = signature(below);
        if (seen.has(key)) continue;
        seen.add(key);
        next.push(below);
      }
      if (seen.size > MAX_ESTIMATE_STEPS) return { path: place, message: `is too intricate to estimate what validating costs (more than ${MAX_ESTIMATE_STEPS} distinct combinations of subschemas down an input)` };
    }
    frontier = next;
  }
  return undefined;
}

/**
 * Every problem that keeps `schema` from being compiled (as a definition's `input`) or published
 * (as its `output_schema`), each at its place under `place`. Costs at most a few passes over a
 * schema of MAX_SCHEMA_NODES values.
 */
export function schemaProblems(schema: unknown, place: string): DefinitionProblem[] {
  const size = sizeProblem(schema, place);
  if (size) return [size];
  const graph = collectSchemaGraph(schema);
  const problems = [...patternProblems(graph.nodes, place), ...graph.unresolved.map((ref) => ({ path: dotted(place, ref.path), message: ref.message }))];
  const order = sameLocationOrder(graph.nodes);
  if ('cycle' in order) problems.push({ path: dotted(place, order.cycle.path), message: 'is part of a circle of $ref that never goes into the input: validating would never end' });
  else if (graph.root) {
    const cost = costProblem(graph.root, order.order, place);
    if (cost) problems.push(cost);
  }
  return problems;
}
