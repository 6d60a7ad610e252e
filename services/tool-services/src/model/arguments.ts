/**
 * Arguments the offline model gives a tool, built from the tool's JSON Schema: each required
 * property gets a value (optional ones are left out), nested objects the same way.
 *   const → it; enum → its first value; default → it; string → the prompt's topic;
 *   number/integer → its minimum, else 1 (its maximum when that is below 1); boolean → true;
 *   array → empty, or `minItems` values built from `items`; object → its own required properties;
 *   null or no type → null. A value nested more than 8 levels below the arguments is null.
 */
import type { PropertySchema } from './schema.js';

/** Nesting past this depth is given null: a schema may nest, the arguments need not follow far. */
const MAX_ARGUMENT_DEPTH = 8;
/** An array's `minItems` is honoured up to this many items. */
const MAX_FILLED_ITEMS = 8;

export function argumentsFor(parameters: { properties?: Record<string, PropertySchema>; required?: string[] } | undefined, topic: string): Record<string, unknown> {
  return objectFor(parameters ?? {}, topic, 0);
}

function objectFor(schema: { properties?: Record<string, PropertySchema>; required?: string[] }, topic: string, depth: number): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    const property = schema.properties?.[name];
    if (property) result[name] = valueFor(property, topic, depth + 1);
  }
  return result;
}

function valueFor(schema: PropertySchema, topic: string, depth: number): unknown {
  if (depth > MAX_ARGUMENT_DEPTH) return null;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== 'null') ?? 'null') : (schema.type ?? (schema.properties ? 'object' : 'null'));
  switch (type) {
    case 'string':
      return topic;
    case 'number':
    case 'integer':
      return schema.minimum ?? (schema.maximum !== undefined && schema.maximum < 1 ? schema.maximum : 1);
    case 'boolean':
      return true;
    case 'array': {
      const count = Math.min(schema.minItems ?? 0, MAX_FILLED_ITEMS);
      return Array.from({ length: count }, () => (schema.items ? valueFor(schema.items, topic, depth + 1) : null));
    }
    case 'object':
      return objectFor(schema, topic, depth);
    default:
      return null;
  }
}
