/**
 * Checks arguments against a tool's inputSchema with ajv before anything is sent, as the tool
 * client does for tool services: a refusal names every problem and is never retried.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ToolInputError } from '@switchyard/tool-client';

// ajv-formats is CommonJS: under NodeNext its plugin is the `default` of the imported module.
const addFormats = addFormatsModule.default;

function makeAjv(draft2020: boolean) {
  const ajv = draft2020 ? new Ajv2020({ allErrors: true, strict: false }) : new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv;
}

export class ArgumentChecker {
  readonly #ajv = { draft7: makeAjv(false), draft2020: makeAjv(true) };
  #validators = new Map<string, ValidateFunction>();

  /** Forgets compiled schemas: the server listed its tools again, and a schema may have changed. */
  reset(): void {
    this.#validators = new Map();
  }

  /** Throws ToolInputError (code `invalid_parameters`) when `args` break `schema`. */
  check(context: { service: string; tool: string; schema: Record<string, unknown> }, args: unknown): void {
    const validate = this.#validator(context.tool, context.schema);
    if (validate(args)) return;
    const issues = (validate.errors ?? []).map((e) => ({ path: e.instancePath || '(arguments)', message: e.message ?? 'invalid' }));
    throw new ToolInputError({
      service: context.service,
      tool: context.tool,
      code: 'invalid_parameters',
      message: `Arguments for ${context.tool} do not match its inputSchema: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
      details: { issues },
    });
  }

  #validator(tool: string, schema: Record<string, unknown>): ValidateFunction {
    let validate = this.#validators.get(tool);
    if (!validate) {
      const draft2020 = String(schema.$schema ?? '').includes('2020-12');
      // The same $id from two tools must not clash in one ajv.
      const { $id: _id, ...rest } = schema;
      validate = (draft2020 ? this.#ajv.draft2020 : this.#ajv.draft7).compile(rest);
      this.#validators.set(tool, validate);
    }
    return validate;
  }
}
