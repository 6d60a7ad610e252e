import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deepMerge, mergeAnalysis, parseAnalysis } from './analysis.js';
import { AceflowError, LIMITS } from './errors.js';

const invalidField = (data: unknown) => {
  try {
    parseAnalysis(data);
  } catch (error) {
    assert.ok(error instanceof AceflowError);
    assert.equal(error.code, 'INVALID_DATA');
    return error.details.field;
  }
  assert.fail(`accepted ${JSON.stringify(data)}`);
};

test('the seed example is accepted as sent', () => {
  const data = { project_info: { name: 'TaskManager', tech_stack: ['Python', 'FastAPI', 'Vue3'], file_count: 42 }, test_metrics: { total_tests: 25, test_coverage_percent: 87.5 } };
  assert.deepEqual(parseAnalysis(data), data);
});

test('the seed data rules name the offending field', () => {
  assert.equal(invalidField({ project_info: { name: '' } }), 'data.project_info.name');
  assert.equal(invalidField({ project_info: { name: 'x'.repeat(101) } }), 'data.project_info.name');
  assert.equal(invalidField({ project_info: { file_count: -1 } }), 'data.project_info.file_count');
  assert.equal(invalidField({ project_info: { file_count: 1.5 } }), 'data.project_info.file_count');
  assert.equal(invalidField({ code_metrics: { complexity_score: 20.5 } }), 'data.code_metrics.complexity_score');
  assert.equal(invalidField({ code_metrics: { complexity_score: -0.1 } }), 'data.code_metrics.complexity_score');
  assert.equal(invalidField({ code_metrics: { total_lines: -3 } }), 'data.code_metrics.total_lines');
  assert.equal(invalidField({ test_metrics: { test_coverage_percent: 100.1 } }), 'data.test_metrics.test_coverage_percent');
  assert.equal(invalidField({ code_metrics: { test_coverage_percent: -1 } }), 'data.code_metrics.test_coverage_percent');
  assert.equal(invalidField({ project_info: { tech_stack: 'Python' } }), 'data.project_info.tech_stack');
  assert.equal(invalidField({ security_scan: 'none' }), 'data.security_scan');
  assert.equal(invalidField({}), 'data');
  assert.equal(invalidField(null), 'data');
});

test('the edges of each range are accepted', () => {
  assert.ok(parseAnalysis({ project_info: { name: 'x'.repeat(100), file_count: 0 }, code_metrics: { complexity_score: 20 }, test_metrics: { test_coverage_percent: 100 } }));
  assert.ok(parseAnalysis({ code_metrics: { complexity_score: 0 }, test_metrics: { test_coverage_percent: 0 } }));
});

test('an analysis over 10 MB is refused with its size, one at the limit is not', () => {
  const filler = (bytes: number) => ({ project_info: { notes: 'x'.repeat(bytes - JSON.stringify({ project_info: { notes: '' } }).length) } });
  assert.ok(parseAnalysis(filler(LIMITS.analysisBytes)));
  try {
    parseAnalysis(filler(LIMITS.analysisBytes + 1));
    assert.fail('accepted');
  } catch (error) {
    assert.ok(error instanceof AceflowError);
    assert.equal(error.code, 'INVALID_DATA');
    assert.deepEqual([error.details.size_bytes, error.details.limit_bytes], [LIMITS.analysisBytes + 1, 10 * 1024 * 1024]);
  }
});

test('merging goes into each category and its nested objects; arrays and scalars are replaced', () => {
  const stored = { project_info: { name: 'A', tech_stack: ['TS'], directory_structure: { src: { files: 3 } } }, code_metrics: { total_lines: 10 } };
  const merged = mergeAnalysis(stored, { project_info: { tech_stack: ['TS', 'Redis'], directory_structure: { test: { files: 1 } } }, test_metrics: { total_tests: 4 } });
  assert.deepEqual(merged, {
    project_info: { name: 'A', tech_stack: ['TS', 'Redis'], directory_structure: { src: { files: 3 }, test: { files: 1 } } },
    code_metrics: { total_lines: 10 },
    test_metrics: { total_tests: 4 },
  });
  assert.deepEqual(stored.project_info.tech_stack, ['TS'], 'the stored value is not mutated');
});

test('a __proto__ key is merged as a plain key and reaches no prototype', () => {
  const merged = deepMerge({ a: {} }, JSON.parse('{"a": {"__proto__": {"polluted": true}}}')) as { a: Record<string, unknown> };
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.getPrototypeOf(merged.a), Object.prototype);
  assert.ok(Object.hasOwn(merged.a, '__proto__'));
});

test('a merge whose result would pass 10 MB is refused', () => {
  const half = 'x'.repeat(6 * 1024 * 1024);
  assert.throws(() => mergeAnalysis({ project_info: { a: half } }, { code_metrics: { b: half } }), (error: unknown) => error instanceof AceflowError && error.code === 'INVALID_DATA');
});
