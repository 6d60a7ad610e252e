/**
 * Checks arguments against a tool's JSON Schema: a model's tool calls, whose arguments are
 * untrusted, before any call is made. Schemas come from tool services, MCP servers and pipelines,
 * so each is held to the same bounds as a definition's schemas (schema-bounds.ts), its patterns
 * run by RE2, and it is compiled once per process, keeping at most `maxSchemas`.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { linearRegExpEngine } from './linear-regex.js';
import { schemaProblems } from './schema-bounds.js';

export class ToolArgumentChecker {
  readonly #ajv = new Ajv2020({ allErrors: true, strict: false, logger: false, code: { regExp: linearRegExpEngine } });
  readonly #compiled = new Map<string, ValidateFunction | string>();
  readonly #maxSchemas: number;

  /** @param options.maxSchemas schemas kept compiled; past it the oldest is dropped (default 256) */
  constructor(options: { maxSchemas?: number } = {}) {
    this.#maxSchemas = options.maxSchemas ?? 256;
  }

  /**
   * What is wrong with `args` (empty: they fit). A schema past its bounds or that ajv refuses is
   * not checked here: the tool checks its own input.
   */
  problems(schema: Record<string, unknown>, args: unknown): string[] {
    const validate = this.#validator(schema);
    if (typeof validate === 'string' || validate(args)) return [];
    return (validate.errors ?? []).slice(0, 20).map((e) => `${e.instancePath || '(arguments)'} ${e.message ?? 'is invalid'}${namedProperty(e)}`);
  }

  #validator(schema: Record<string, unknown>): ValidateFunction | string {
    const key = JSON.stringify(schema);
    const known = this.#compiled.get(key);
    if (known !== undefined) return known;
    let validate: ValidateFunction | string;
    const bounds = schemaProblems(schema, 'parameters');
    // Services publish draft-07 and 2020-12 alike; the keywords arguments use mean the same in both,
    // and a meta-schema this ajv does not hold would refuse the whole schema.
    const { $schema: _draft, ...body } = schema;
    try {
      validate = bounds.length > 0 ? bounds.map((p) => p.message).join('; ') : this.#ajv.compile(body);
    } catch (error) {
      validate = error instanceof Error ? error.message : String(error);
    }
    if (this.#compiled.size >= this.#maxSchemas) this.#dropOldest();
    this.#compiled.set(key, validate);
    return validate;
  }

  #dropOldest(): void {
    const [oldest] = this.#compiled.keys();
    if (oldest === undefined) return;
    const dropped = this.#compiled.get(oldest);
    if (dropped && typeof dropped !== 'string') this.#ajv.removeSchema(dropped.schema as object);
    this.#compiled.delete(oldest);
  }
}

/** The property an `additionalProperties` error is about: ajv says only "must NOT have additional properties". */
export function namedProperty(error: { keyword: string; params: unknown }): string {
  return error.keyword === 'additionalProperties' ? ` (${String((error.params as { additionalProperty?: unknown }).additionalProperty)})` : '';
}
