import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultSop } from './default-sop.js';
import { DEFAULT_STAGES, type SopGraph } from './domain.js';
import { SopGraphError, validateSop } from './sop.js';

const step = (identifier: string, dependencies: string[] = [], stage = '需求分析') => ({
  identifier,
  name: identifier,
  stage,
  description: '',
  rules: [],
  output_template: '',
  dependencies,
});

test('the default SOP has ten steps over the six stages, in stage order, each with rules and a template', () => {
  const sop = defaultSop();
  assert.deepEqual(sop.stages, ['需求分析', '设计语言系统', '系统分析', '技术实现', '测试验证', '部署发布']);
  assert.equal(sop.steps.length, 10);
  assert.deepEqual([...new Set(sop.steps.map((s) => s.stage))], [...DEFAULT_STAGES]);
  for (const s of sop.steps) {
    assert.ok(s.rules.length > 0, `${s.identifier} has rules`);
    assert.ok(s.output_template.startsWith('# '), `${s.identifier} has a template`);
  }
});

test('the default SOP is a valid graph whose order puts every step after its dependencies', () => {
  const order = validateSop(defaultSop()).map((s) => s.identifier);
  for (const s of defaultSop().steps) {
    for (const dependency of s.dependencies) assert.ok(order.indexOf(dependency) < order.indexOf(s.identifier), `${dependency} before ${s.identifier}`);
  }
});

test('a fresh copy of the default SOP is returned each time, so changing one changes no other', () => {
  const first = defaultSop();
  first.steps[0]?.rules.push('extra');
  assert.ok(!defaultSop().steps[0]?.rules.includes('extra'));
});

test('duplicate steps, unknown dependencies, unknown stages, bad identifiers and cycles are refused', () => {
  const graph = (steps: SopGraph['steps']): SopGraph => ({ stages: ['需求分析'], steps });
  const refused: [SopGraph, RegExp][] = [
    [graph([]), /at least one step/],
    [graph([step('a'), step('a')]), /'a' is defined twice/],
    [graph([step('a', ['ghost'])]), /unknown step 'ghost'/],
    [graph([step('a', [], '部署发布')]), /unknown stage/],
    [graph([step('9lives')]), /steps\[0\]\.identifier/],
    [graph([step('a', ['c']), step('b', ['a']), step('c', ['b'])]), /cycle: a → c → b → a/],
  ];
  for (const [bad, message] of refused) assert.throws(() => validateSop(bad), (e: unknown) => e instanceof SopGraphError && message.test(e.message));
});
