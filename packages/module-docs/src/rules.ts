/**
 * The parameter validation rules table of seed 003 (VAR002): for each tool, each field's type,
 * whether it is required, its allowed values and its pattern. The table, not hand-written code,
 * decides what arguments a tool accepts.
 */
import { MAX_NAME_LENGTH, MODULE_TYPES, NAME_PATTERN } from './module.js';

export interface ValidationRule {
  field: string;
  type: 'string' | 'number' | 'integer';
  required?: boolean;
  enum?: string[];
  pattern?: string;
  /** Longest string, or largest number. */
  max?: number;
  /** Shortest string, or smallest number. */
  min?: number;
}

export type ModuleDocsTool = 'add_module' | 'get_module_by_name' | 'smart_search' | 'get_type_structure';
export const MODULE_DOCS_TOOLS: readonly ModuleDocsTool[] = ['add_module', 'get_module_by_name', 'smart_search', 'get_type_structure'];

const HIERARCHICAL_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*){0,4}$';
const PROJECT: ValidationRule = { field: 'project', type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' };
const TYPES = [...MODULE_TYPES];

export const PARAMETER_VALIDATION_RULES: Readonly<Record<ModuleDocsTool, ValidationRule[]>> = {
  add_module: [
    { field: 'name', type: 'string', required: true, pattern: NAME_PATTERN, max: MAX_NAME_LENGTH },
    { field: 'type', type: 'string', required: true, enum: TYPES },
    { field: 'description', type: 'string', required: true, min: 1, max: 2000 },
    { field: 'parent', type: 'string', pattern: HIERARCHICAL_PATTERN },
    { field: 'file', type: 'string', min: 1, max: 500 },
    PROJECT,
  ],
  get_module_by_name: [{ field: 'hierarchical_name', type: 'string', required: true, pattern: HIERARCHICAL_PATTERN }, PROJECT],
  smart_search: [
    { field: 'query', type: 'string', max: 200 },
    { field: 'type', type: 'string', enum: TYPES },
    { field: 'parent', type: 'string', pattern: HIERARCHICAL_PATTERN },
    { field: 'file', type: 'string', min: 1, max: 500 },
    { field: 'limit', type: 'integer', min: 1, max: 100 },
    { field: 'offset', type: 'integer', min: 0, max: 100_000 },
    PROJECT,
  ],
  get_type_structure: [{ field: 'type_name', type: 'string', required: true, enum: TYPES }],
};

export interface RuleViolation {
  field: string;
  rule: 'required' | 'type' | 'enum' | 'pattern' | 'min' | 'max' | 'unknown';
  message: string;
}

function checkValue(rule: ValidationRule, value: unknown): RuleViolation | undefined {
  const fail = (kind: RuleViolation['rule'], message: string) => ({ field: rule.field, rule: kind, message: `'${rule.field}' ${message}` });
  const typeOk = rule.type === 'string' ? typeof value === 'string' : rule.type === 'integer' ? Number.isInteger(value) : typeof value === 'number' && Number.isFinite(value);
  if (!typeOk) return fail('type', `must be ${rule.type === 'integer' ? 'an integer' : `a ${rule.type}`}`);
  if (rule.enum && !rule.enum.includes(value as string)) return fail('enum', `must be one of ${rule.enum.join(', ')}`);
  if (rule.pattern && !new RegExp(rule.pattern).test(value as string)) return fail('pattern', `does not match ${rule.pattern}`);
  const size = typeof value === 'string' ? value.length : (value as number);
  const unit = typeof value === 'string' ? ' characters' : '';
  if (rule.min !== undefined && size < rule.min) return fail('min', `must be at least ${rule.min}${unit}`);
  if (rule.max !== undefined && size > rule.max) return fail('max', `must be at most ${rule.max}${unit}`);
  return undefined;
}

/**
 * Checks raw arguments against the tool's rules (FUNC001). Unknown fields are violations too,
 * so a misspelt optional field is reported instead of silently ignored.
 */
export function checkParameters(tool: ModuleDocsTool, raw: unknown): { ok: true; params: Record<string, unknown> } | { ok: false; violations: RuleViolation[] } {
  const rules = PARAMETER_VALIDATION_RULES[tool];
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, violations: [{ field: '(arguments)', rule: 'type', message: 'Arguments must be an object' }] };
  }
  const args = raw as Record<string, unknown>;
  const violations: RuleViolation[] = [];
  for (const rule of rules) {
    const value = args[rule.field];
    if (value === undefined || value === null) {
      if (rule.required) violations.push({ field: rule.field, rule: 'required', message: `'${rule.field}' is required` });
      continue;
    }
    const violation = checkValue(rule, value);
    if (violation) violations.push(violation);
  }
  const known = new Set(rules.map((r) => r.field));
  for (const field of Object.keys(args)) {
    if (!known.has(field)) violations.push({ field, rule: 'unknown', message: `'${field}' is not a parameter of ${tool}` });
  }
  return violations.length === 0 ? { ok: true, params: args } : { ok: false, violations };
}

/** The tool's rules as the JSON Schema an MCP client sees. */
export function rulesToJsonSchema(tool: ModuleDocsTool): Record<string, unknown> {
  const rules = PARAMETER_VALIDATION_RULES[tool];
  const properties = Object.fromEntries(
    rules.map((rule) => {
      const isString = rule.type === 'string';
      const schema: Record<string, unknown> = { type: rule.type };
      if (rule.enum) schema.enum = rule.enum;
      if (rule.pattern) schema.pattern = rule.pattern;
      if (rule.min !== undefined) schema[isString ? 'minLength' : 'minimum'] = rule.min;
      if (rule.max !== undefined) schema[isString ? 'maxLength' : 'maximum'] = rule.max;
      return [rule.field, schema];
    }),
  );
  return { type: 'object', properties, required: rules.filter((r) => r.required).map((r) => r.field), additionalProperties: false };
}
