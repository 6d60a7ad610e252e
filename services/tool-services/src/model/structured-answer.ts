/**
 * The offline model's answer to `response_format: {type: "json_schema"}`: a value built from the
 * schema alone, so an agent whose instructions say nothing of the shape still gets an answer that
 * fits it, as from a server that honours structured outputs.
 *   object → its required properties (one it does not describe: `sources` the results, any other
 *   the summary, as the plain JSON answer has them); array of objects →
 *   one item per tool result (at least `minItems`, at most 8), each item reading that result;
 *   string → a property named `tool`/`name`/`source` in an item gets the result's tool, any other
 *   the summary (the item's result, or one line about the results); const, enum, default as given;
 *   number → its minimum, else the number of results; boolean → true; anything else → null.
 * Nesting past 8 levels is null: a schema may nest, the answer need not follow far.
 */

export interface AnswerSource {
  tool: string;
  summary: string;
}

const MAX_DEPTH = 8;
const MAX_ITEMS = 8;
const TOOL_NAMES = new Set(['tool', 'name', 'source', 'tool_name']);

/** The JSON value the schema asks for, filled from the topic and the tool results read. */
export function structuredAnswer(schema: unknown, context: { topic: string; sources: AnswerSource[] }): unknown {
  const summary = context.sources.length > 0 ? `Summary of ${context.sources.length} tool result${context.sources.length === 1 ? '' : 's'} about ${context.topic}.` : `Offline answer about ${context.topic}.`;
  return valueFor(schema, { ...context, summary, source: undefined, key: undefined }, 0);
}

interface Fill {
  topic: string;
  sources: AnswerSource[];
  summary: string;
  /** The tool result an array item stands for. */
  source: AnswerSource | undefined;
  /** The property the value is for. */
  key: string | undefined;
}

function valueFor(schema: unknown, fill: Fill, depth: number): unknown {
  if (depth > MAX_DEPTH || typeof schema !== 'object' || schema === null) return null;
  const node = schema as Record<string, unknown>;
  if (node.const !== undefined) return node.const;
  if (Array.isArray(node.enum)) return node.enum[0] ?? null;
  if (node.default !== undefined) return node.default;
  const types = Array.isArray(node.type) ? node.type : [node.type ?? (node.properties ? 'object' : node.items ? 'array' : undefined)];
  const type = types.find((t) => t !== 'null') ?? null;
  switch (type) {
    case 'string':
      if (fill.source && fill.key && TOOL_NAMES.has(fill.key)) return fill.source.tool;
      return fill.source?.summary ?? fill.summary;
    case 'number':
    case 'integer':
      return typeof node.minimum === 'number' ? node.minimum : fill.sources.length;
    case 'boolean':
      return true;
    case 'array':
      return arrayFor(node, fill, depth);
    case 'object':
      return objectFor(node, fill, depth);
    default:
      return null;
  }
}

function objectFor(node: Record<string, unknown>, fill: Fill, depth: number): Record<string, unknown> {
  const properties = typeof node.properties === 'object' && node.properties !== null ? (node.properties as Record<string, unknown>) : {};
  const required = Array.isArray(node.required) ? node.required.filter((name): name is string => typeof name === 'string') : [];
  const result: Record<string, unknown> = {};
  for (const name of required) result[name] = Object.hasOwn(properties, name) ? valueFor(properties[name], { ...fill, key: name }, depth + 1) : undescribed(name, fill);
  return result;
}

/** A required property the schema does not describe: what the plain JSON answer gives it (`answer`, `sources`), else the summary. */
function undescribed(name: string, fill: Fill): unknown {
  if (name === 'sources') return fill.sources;
  return fill.source?.summary ?? fill.summary;
}

function arrayFor(node: Record<string, unknown>, fill: Fill, depth: number): unknown[] {
  const minItems = typeof node.minItems === 'number' ? node.minItems : 0;
  const count = Math.min(MAX_ITEMS, Math.max(minItems, fill.source ? 0 : fill.sources.length));
  return Array.from({ length: count }, (_, index) => valueFor(node.items, { ...fill, source: fill.source ?? fill.sources[index % Math.max(1, fill.sources.length)], key: undefined }, depth + 1));
}
