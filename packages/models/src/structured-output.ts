/**
 * Structured outputs: an agent step's `output_schema` sent as OpenAI's
 * `response_format: {type: "json_schema", json_schema: {name, schema, strict}}` (and as Anthropic's
 * forced answer tool, see anthropic-turn.ts). `strict` is asked only when the schema is one strict
 * mode accepts (every object closed and all its properties required, only the keywords strict mode
 * knows): a schema that leaves properties optional or open would be refused, or changed, by strict
 * mode, so it is sent as a hint instead and the engine's check and correction stay the guard.
 */

/** What a turn asks the answer to be: a JSON Schema with a name. */
export interface ResponseFormat {
  /** 1-64 letters, digits, `_` or `-` (see {@link responseFormatName}). */
  name: string;
  schema: Record<string, unknown>;
  /** Whether the server is asked to hold the answer to the schema exactly. */
  strict: boolean;
}

/** The keywords strict mode accepts (OpenAI's structured outputs, supported schemas). */
const STRICT_KEYWORDS = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'anyOf', 'description', 'title',
  '$defs', 'definitions', '$ref', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems',
]);

/** Deepest schema walked; deeper is not strict (strict mode allows 10 levels of nesting anyway). */
const MAX_DEPTH = 12;

/** The format of an output schema: strict when {@link strictAllowed} holds. */
export function responseFormatFor(name: string, schema: Record<string, unknown>): ResponseFormat {
  return { name: responseFormatName(name), schema, strict: strictAllowed(schema) };
}

/** A name OpenAI accepts for a schema: the stage's, other characters as `_`, at most 64. */
export function responseFormatName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return cleaned === '' ? 'answer' : cleaned;
}

/** Whether strict mode accepts the schema as it is: an object at the root, every object closed with all its properties required. */
export function strictAllowed(schema: Record<string, unknown>): boolean {
  if (schema.type !== 'object') return false;
  return strictNode(schema, 0);
}

function strictNode(node: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH || !isRecord(node)) return false;
  for (const key of Object.keys(node)) if (!STRICT_KEYWORDS.has(key)) return false;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes('object') || isRecord(node.properties)) {
    const properties = isRecord(node.properties) ? node.properties : {};
    const required = Array.isArray(node.required) ? node.required : [];
    if (node.additionalProperties !== false) return false;
    if (Object.keys(properties).some((key) => !required.includes(key))) return false;
    if (!Object.values(properties).every((child) => strictNode(child, depth + 1))) return false;
  }
  if (node.items !== undefined && !strictNode(node.items, depth + 1)) return false;
  if (node.anyOf !== undefined && !(Array.isArray(node.anyOf) && node.anyOf.every((child) => strictNode(child, depth + 1)))) return false;
  for (const defs of [node.$defs, node.definitions]) {
    if (defs !== undefined && !(isRecord(defs) && Object.values(defs).every((child) => strictNode(child, depth + 1)))) return false;
  }
  return true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
