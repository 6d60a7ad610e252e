/**
 * Tools' inputSchemas compiled with ajv, kept by their text across listings. A service's tool
 * list is fetched again every minute (and an MCP server's whenever it changes), each time as new
 * objects; ajv keeps every schema object it compiled until told otherwise, so compiling each
 * listing's objects anew cost a compile per tool per minute and grew every worker's heap without
 * bound (about 12 KB a compile). Here a listing compiles only what changed, and a schema no listing
 * holds any more is removed from ajv.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ToolInputError } from './errors.js';

// ajv-formats is CommonJS: under NodeNext its plugin is the `default` of the imported module.
const addFormats = addFormatsModule.default;

function makeAjv(draft2020: boolean) {
  const ajv = draft2020 ? new Ajv2020({ allErrors: true, strict: false }) : new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv;
}

type Schema = Record<string, unknown>;

/** A schema's text as it is compiled: without `$id`, since the same `$id` from two tools must not clash in one ajv. */
function compiledText(schema: Schema): string {
  const { $id: _id, ...rest } = schema;
  return JSON.stringify(rest);
}

export class InputSchemas {
  readonly #ajv = { draft7: makeAjv(false), draft2020: makeAjv(true) };
  /** By text, what `retain` keeps or drops. */
  readonly #byText = new Map<string, ValidateFunction>();
  /** By the listed object, so a call costs no serialisation while its listing stands. */
  #byObject = new WeakMap<Schema, ValidateFunction>();
  #compilations = 0;

  /** Schemas held compiled. */
  get size(): number {
    return this.#byText.size;
  }

  /** Schemas compiled since this was made (a listing fetched again and unchanged adds none). */
  get compilations(): number {
    return this.#compilations;
  }

  /** Throws ToolInputError (code `invalid_parameters`) when `args` break `schema`. */
  check(context: { service: string; tool: string; schema: Schema }, args: unknown): void {
    const validate = this.validator(context.schema);
    if (validate(args)) return;
    // ajv does not name an additional property in its message: the name is in its params.
    const issues = (validate.errors ?? []).map((e) => ({ path: e.instancePath || '(arguments)', message: `${e.message ?? 'invalid'}${e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: unknown }).additionalProperty)})` : ''}` }));
    throw new ToolInputError({
      service: context.service,
      tool: context.tool,
      code: 'invalid_parameters',
      message: `Arguments for ${context.tool} do not match its inputSchema: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
      details: { issues },
    });
  }

  /** The schema's validator, compiled once for its text. */
  validator(schema: Schema): ValidateFunction {
    const known = this.#byObject.get(schema);
    if (known) return known;
    const text = compiledText(schema);
    let validate = this.#byText.get(text);
    if (!validate) {
      const draft2020 = String(schema.$schema ?? '').includes('2020-12');
      validate = (draft2020 ? this.#ajv.draft2020 : this.#ajv.draft7).compile(JSON.parse(text) as Schema);
      this.#compilations += 1;
      this.#byText.set(text, validate);
    }
    this.#byObject.set(schema, validate);
    return validate;
  }

  /** A new listing: the schemas it does not hold leave ajv; those it holds stay compiled. */
  retain(schemas: Iterable<Schema>): void {
    const listed = new Set<string>();
    for (const schema of schemas) listed.add(compiledText(schema));
    for (const [text, validate] of this.#byText) {
      if (listed.has(text)) continue;
      this.#ajvOf(validate).removeSchema(validate.schema as object);
      this.#byText.delete(text);
    }
    this.#byObject = new WeakMap();
  }

  #ajvOf(validate: ValidateFunction): Ajv {
    const draft2020 = String((validate.schema as Schema).$schema ?? '').includes('2020-12');
    return draft2020 ? this.#ajv.draft2020 : this.#ajv.draft7;
  }
}
