/**
 * A definition's `input` JSON Schema as a validator. Each compiled definition version has an ajv
 * instance of its own, so a user's `$id` is theirs alone (in a shared one it clashed with the
 * next schema naming it, and every run then failed), and its patterns run through RE2
 * (`code.regExp`), in linear time. Its bounds (schema-bounds.ts) are checked before ajv sees it,
 * here as well as at registration: every process compiles what the others stored.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { linearRegExpEngine } from './linear-regex.js';
import type { DefinitionProblem } from './problems.js';
import { schemaProblems } from './schema-bounds.js';

/**
 * Only checks schemas against the JSON Schema meta-schema (which registers nothing); compiling
 * that meta-schema once per definition would cost each one ~20 ms.
 */
const metaSchemaChecker = new Ajv2020({ strict: false, logger: false, code: { regExp: linearRegExpEngine } });

/** ajv for one definition: every error collected, refs called rather than inlined (linear code), patterns by RE2. */
const definitionAjv = () => new Ajv2020({ allErrors: true, strict: false, logger: false, validateSchema: false, inlineRefs: false, code: { regExp: linearRegExpEngine } });

const described = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * A schema of the definition (its `input`, or an agent's `output_schema`: `place`) as a
 * validator, or the problems (each naming its place) that keep it from being one.
 */
export function compileInputSchema(schema: Record<string, unknown>, place = 'input'): { validate: ValidateFunction } | { problems: DefinitionProblem[] } {
  const bounds = schemaProblems(schema, place);
  if (bounds.length > 0) return { problems: bounds };
  try {
    if (!metaSchemaChecker.validateSchema(schema)) return { problems: [{ path: place, message: `not a valid JSON Schema: ${metaSchemaChecker.errorsText(metaSchemaChecker.errors)}` }] };
    return { validate: definitionAjv().compile(schema) };
  } catch (error) {
    return { problems: [{ path: place, message: `not a valid JSON Schema: ${described(error)}` }] };
  }
}

/** What is wrong with a run's input, each problem at the input's field. */
export function inputProblems(validate: ValidateFunction, input: unknown, root = '(input)'): DefinitionProblem[] {
  if (validate(input)) return [];
  return (validate.errors ?? []).map((e) => {
    const field = [e.instancePath.replace(/^\//, '').replace(/\//g, '.'), e.keyword === 'required' ? String((e.params as { missingProperty?: string }).missingProperty) : ''].filter(Boolean).join('.');
    const extra = e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : '';
    return { path: field || root, message: `${e.message ?? 'is invalid'}${extra}` };
  });
}
