import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compilePipeline, type StoredPipeline } from './compile.js';
import { compileInputSchema } from './input-schema.js';
import { MAX_DEFINITION_NODES } from './limits.js';
import { parseDefinitionText } from './parse-text.js';
import { DefinitionError, type DefinitionProblem } from './problems.js';
import { schemaProblems } from './schema-bounds.js';
import { validateDefinition } from './validate.js';

/** The problems a parse refuses `text` with, and how long it took. */
/** The refusal's problems, and the CPU it took (this process's own: a busy machine does not inflate it as it does wall time). */
function refusal(text: string, options: { json?: boolean } = {}): { problems: readonly DefinitionProblem[]; ms: number } {
  const started = process.cpuUsage();
  try {
    parseDefinitionText(text, options);
  } catch (error) {
    if (!(error instanceof DefinitionError)) throw error;
    const used = process.cpuUsage(started);
    return { problems: error.problems, ms: (used.user + used.system) / 1000 };
  }
  assert.fail('the text was accepted');
}

/** The attack's schema: `levels` levels of a oneOf over two $refs to the level below (2^levels). */
export function nestedOneOf(levels: number): Record<string, unknown> {
  const defs: Record<string, unknown> = { l0: { type: 'string' } };
  for (let i = 1; i <= levels; i += 1) defs[`l${i}`] = { oneOf: [{ $ref: `#/$defs/l${i - 1}` }, { $ref: `#/$defs/l${i - 1}` }] };
  return { type: 'object', properties: { x: { $ref: `#/$defs/l${levels}` } }, $defs: defs };
}

test('a definition over 128 KiB is refused by its size before it is parsed', () => {
  const { problems, ms } = refusal(`${'['.repeat(490_000)}${']'.repeat(490_000)}`);
  assert.deepEqual(problems.map((p) => p.path), ['(definition)']);
  assert.match(problems[0]?.message ?? '', /is 980000 bytes; a definition is at most 131072 bytes/);
  assert.ok(ms < 500, `took ${ms} ms of CPU`);
});

test('nesting past the bound is refused from the text, as YAML and as JSON, with where', () => {
  for (const [text, json] of [[`${'['.repeat(60_000)}${']'.repeat(60_000)}`, false], [`${'['.repeat(60_000)}${']'.repeat(60_000)}`, true], [`${'- '.repeat(60_000)}x`, false]] as const) {
    const { problems, ms } = refusal(text, { json });
    assert.equal(problems.length, 1);
    assert.match(`${problems[0]?.path}: ${problems[0]?.message}`, /^(line 1|\(definition\)): nests (more than 64 levels deep|deeper than 32 levels)/);
    assert.ok(ms < 500, `took ${ms} ms of CPU`);
  }
  const indented = ['name: x', 'steps:', ...Array.from({ length: 40 }, (_, i) => `${'  '.repeat(i + 1)}a${i}:`)].join('\n');
  const { problems } = refusal(`${indented} 1\n`);
  assert.match(problems[0]?.path ?? '', /^steps\.a0\.a1\.a2\.a3\.a4\.…/);
  assert.match(problems[0]?.message ?? '', /nests deeper than 32 levels/);
});

test('an alias bomb is refused: by the alias count, and by its size once expanded', () => {
  const many = refusal(`big: &b ${'x'.repeat(1000)}\nl: [${Array(99).fill('*b').join(', ')}]\n`);
  assert.match(many.problems[0]?.message ?? '', /a definition uses at most 50 aliases/);
  const big = refusal(`big: &b ${'x'.repeat(100_000)}\nl: [${Array(20).fill('*b').join(', ')}]\n`);
  assert.match(big.problems[0]?.message ?? '', /more than 262144 characters as JSON \(YAML aliases expanded\)/);
  assert.ok(big.ms < 500, `took ${big.ms} ms`);
});

test('a mapping of many keys is refused by its node count without YAML\'s quadratic key check', () => {
  let text = '';
  for (let i = 0; text.length < 120 * 1024; i += 1) text += `k${i}: 1\n`;
  const { problems, ms } = refusal(text);
  assert.match(problems[0]?.message ?? '', new RegExp(`holds more than ${MAX_DEFINITION_NODES} values`));
  assert.ok(ms < 500, `took ${ms} ms of CPU`);
  assert.match(refusal('a: 1\nb: 2\na: 3\n').problems[0]?.message ?? '', /Map keys must be unique: "a" is repeated/);
});

test('an object definition (as MCP sends one) is held to the same bounds', async () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100; i += 1) deep = { a: deep };
  await assert.rejects(validateDefinition({ raw: { name: 'deep', steps: { a: { uses: 'aceflow.stage', args: { x: deep } } } }, version: 1, kinds: ['aceflow.stage'] }), (error: unknown) => error instanceof DefinitionError && /^steps\.a\.args\.x\.a/.test(error.problems[0]?.path ?? '') && /nests deeper/.test(error.problems[0]?.message ?? ''));
});

test('literals, expressions and versions are bounded, each problem at its place', async () => {
  const raw = { name: 'big', version: 100_000_000_000_000, steps: { a: { uses: 'aceflow.stage', needs: [], args: { text: `'${'x'.repeat(5000)}'`, list: ['x'.repeat(17_000)], nested: { [`k${'y'.repeat(300)}`]: 'input' } } } } };
  await assert.rejects(validateDefinition({ raw, version: 1, kinds: ['aceflow.stage'] }), (error: unknown) => {
    assert.ok(error instanceof DefinitionError);
    const lines = error.problems.map((p) => `${p.path}: ${p.message}`);
    assert.ok(lines.some((l) => /^version: .*1000000000/.test(l)), lines.join('\n'));
    assert.ok(lines.some((l) => /^steps\.a\.args\.text: an expression is at most 4000 characters/.test(l)), lines.join('\n'));
    assert.ok(lines.some((l) => /^steps\.a\.args\.list: a literal value is at most 16384 characters/.test(l)), lines.join('\n'));
    assert.ok(lines.some((l) => /^steps\.a\.args\.nested\.ky+: a key is at most 200 characters/.test(l)), lines.join('\n'));
    return true;
  });
});

test('an expression nested past what compiling it can recurse over is a problem at its place, not a stack overflow', async () => {
  const raw = { name: 'parens', steps: { a: { uses: 'aceflow.stage', args: { v: `${'('.repeat(1999)}1${')'.repeat(1999)}` }, when: `${'['.repeat(500)}1${']'.repeat(500)}` } } };
  await assert.rejects(validateDefinition({ raw, version: 1, kinds: ['aceflow.stage'] }), (error: unknown) => {
    assert.ok(error instanceof DefinitionError, String(error));
    assert.deepEqual(error.problems.map((p) => p.path).sort(), ['steps.a.args.v', 'steps.a.when']);
    assert.ok(error.problems.every((p) => /nests too deeply/.test(p.message)));
    return true;
  });
});

test('the nested oneOf schema is refused in milliseconds, naming input, where ajv took seconds', () => {
  const schema = nestedOneOf(25);
  assert.ok(JSON.stringify(schema).length < 2000);
  const started = performance.now();
  const problems = schemaProblems(schema, 'input');
  assert.ok(performance.now() - started < 1000, `took ${performance.now() - started} ms`);
  assert.equal(problems.length, 1);
  assert.equal(problems[0]?.path, 'input');
  assert.match(problems[0]?.message ?? '', /could apply more than 1000 subschemas to a value nested 1 level deep/);
  assert.deepEqual(schemaProblems(nestedOneOf(7), 'input'), [], 'seven levels (about 500 subschemas) are within the bound');
});

test('recursive schemas are judged by how they grow: a tree passes, a doubling recursion and a circle at one place do not', () => {
  const tree = { type: 'object', properties: { left: { $ref: '#' }, right: { $ref: '#' }, kids: { type: 'array', items: { $ref: '#' } } } };
  assert.deepEqual(schemaProblems(tree, 'input'), []);
  const doubling = { type: 'object', anyOf: [{ properties: { a: { $ref: '#' } } }, { properties: { a: { $ref: '#' } } }] };
  assert.match(schemaProblems(doubling, 'input')[0]?.message ?? '', /more than 1000 subschemas to a value nested \d+ levels deep/);
  const circle = { type: 'object', $defs: { a: { $ref: '#/$defs/b' }, b: { allOf: [{ $ref: '#/$defs/a' }] } }, properties: { x: { $ref: '#/$defs/a' } } };
  const [problem] = schemaProblems(circle, 'input');
  assert.match(`${problem?.path}: ${problem?.message}`, /^input\.\$defs\.(a|b\.allOf\.0)\.\$ref: is part of a circle of \$ref/);
});

test('patterns RE2 cannot run, and refs to nothing, are problems at their place', () => {
  const schema = { type: 'object', properties: { a: { type: 'string', pattern: '(x)\\1' }, b: { $ref: 'https://elsewhere.example/s.json' } }, patternProperties: { '^(?=y)': {} } };
  const lines = schemaProblems(schema, 'input').map((p) => `${p.path}: ${p.message}`);
  assert.ok(lines.some((l) => /^input\.properties\.a\.pattern: .*backreferences/.test(l)), lines.join('\n'));
  assert.ok(lines.some((l) => /^input\.patternProperties\.\^\(\?=y\): .*lookahead/.test(l)), lines.join('\n'));
  assert.ok(lines.some((l) => /^input\.properties\.b\.\$ref: "https:\/\/elsewhere\.example\/s\.json" points at nothing/.test(l)), lines.join('\n'));
});

test('a pattern that backtracks for seconds in RegExp checks an input at once', () => {
  const compiled = compileInputSchema({ type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } });
  assert.ok('validate' in compiled);
  const started = performance.now();
  assert.equal(compiled.validate({ name: `${'a'.repeat(26)}!` }), false);
  assert.equal(compiled.validate({ name: `${'a'.repeat(100_000)}!` }), false);
  assert.ok(performance.now() - started < 1000, `took ${performance.now() - started} ms`);
});

test('each definition\'s $id is its own: two pipelines may use the same one, and each checks its input', () => {
  const stored = (name: string, type: string): StoredPipeline => ({
    definition: { name, version: 1, description: '', input: { $id: 'https://example.com/input', type: 'object', properties: { x: { type } }, $defs: { self: { $ref: 'https://example.com/input' } } }, steps: { a: { uses: 'aceflow.stage', needs: [] } } },
    services: {},
    registered_at: new Date(0).toISOString(),
  });
  const first = compilePipeline(stored('first', 'string'));
  const second = compilePipeline(stored('second', 'integer'));
  assert.deepEqual(first.checkInput({ x: 'yes' }), []);
  assert.deepEqual(second.checkInput({ x: 3 }), []);
  assert.equal(second.checkInput({ x: 'no' })[0]?.path, 'x');
  assert.deepEqual(compilePipeline(stored('first', 'string')).checkInput({ x: 'again' }), [], 'compiling the same $id again works too');
});
