import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import { checkParameters, MODULE_DOCS_TOOLS, PARAMETER_VALIDATION_RULES, rulesToJsonSchema, type ValidationRule } from './rules.js';

/** Arguments that satisfy every rule of a tool. */
const VALID = {
  add_module: { name: 'parse_line', type: 'function', description: 'Parses one line', parent: 'utils', file: 'src/utils.ts', project: 'demo' },
  get_module_by_name: { hierarchical_name: 'utils.parse_line', project: 'demo' },
  smart_search: { query: 'parse', type: 'function', parent: 'utils', file: 'src/utils.ts', limit: 10, offset: 0, project: 'demo' },
  get_type_structure: { type_name: 'class' },
} as const;

/** A value that breaks `rule` in the way `kind` names, or undefined when the rule has no such check. */
function breaking(rule: ValidationRule, kind: 'type' | 'enum' | 'pattern' | 'min' | 'max'): unknown {
  switch (kind) {
    case 'type':
      return rule.type === 'string' ? 42 : 'seven';
    case 'enum':
      return rule.enum ? 'module' : undefined;
    case 'pattern':
      return rule.pattern ? '9-not valid!' : undefined;
    case 'min':
      return rule.min === undefined ? undefined : rule.type === 'string' ? '' : rule.min - 1;
    case 'max':
      return rule.max === undefined ? undefined : rule.type === 'string' ? 'a'.repeat(rule.max + 1) : rule.max + 1;
  }
}

test('arguments that satisfy every rule pass for each tool', () => {
  for (const tool of MODULE_DOCS_TOOLS) assert.deepEqual(checkParameters(tool, VALID[tool]), { ok: true, params: VALID[tool] }, tool);
});

for (const tool of MODULE_DOCS_TOOLS) {
  for (const rule of PARAMETER_VALIDATION_RULES[tool]) {
    test(`${tool}: every check on '${rule.field}' refuses a value that breaks it, naming the field`, () => {
      if (rule.required) {
        const { [rule.field]: _dropped, ...rest } = VALID[tool] as Record<string, unknown>;
        const result = checkParameters(tool, rest);
        assert.equal(result.ok, false);
        if (!result.ok) assert.deepEqual(result.violations.map((v) => [v.field, v.rule]), [[rule.field, 'required']]);
      }
      for (const kind of ['type', 'enum', 'pattern', 'min', 'max'] as const) {
        const value = breaking(rule, kind);
        if (value === undefined) continue;
        const result = checkParameters(tool, { ...VALID[tool], [rule.field]: value });
        assert.equal(result.ok, false, `${kind} with ${JSON.stringify(value)}`);
        if (!result.ok) {
          assert.equal(result.violations[0]?.field, rule.field);
          assert.match(result.violations[0]?.message ?? '', new RegExp(`'${rule.field}'`));
        }
      }
    });
  }
}

test('an unknown field and a non-object are refused', () => {
  const unknown = checkParameters('get_type_structure', { type_name: 'class', colour: 'red' });
  assert.equal(unknown.ok, false);
  if (!unknown.ok) assert.deepEqual(unknown.violations.map((v) => [v.field, v.rule]), [['colour', 'unknown']]);
  for (const raw of [null, 'text', [1, 2]]) assert.equal(checkParameters('smart_search', raw).ok, false);
});

test('the JSON Schema published for each tool accepts and refuses what the table does', () => {
  const ajv = new Ajv({ strict: true });
  for (const tool of MODULE_DOCS_TOOLS) {
    const validate = ajv.compile(rulesToJsonSchema(tool));
    assert.equal(validate(VALID[tool]), true, tool);
    assert.equal(validate({ ...VALID[tool], surprise: 1 }), false, tool);
  }
});
