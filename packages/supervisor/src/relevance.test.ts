import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultSop } from './default-sop.js';
import { rankSteps, tokenize } from './relevance.js';

const steps = defaultSop().steps;
const ranked = (requirement: string) => rankSteps(steps, requirement).map((m) => m.step.identifier);

test('Chinese is cut into character bigrams at function characters, English into words', () => {
  assert.deepEqual(tokenize('数据库的表结构'), ['数据', '据库', '表结', '结构']);
  assert.deepEqual(tokenize('Design the REST APIs'), ['design', 'rest', 'api']);
  assert.deepEqual(tokenize('deployment deployed deploying stories'), ['deploy', 'deploy', 'deploy', 'story']);
  assert.deepEqual(tokenize('部署到 Kubernetes'), ['部署', '署到', 'kubernete']);
  assert.deepEqual(tokenize('和'), []);
});

test('a requirement about interfaces ranks the API design step first, in Chinese or English', () => {
  assert.equal(ranked('设计用户登录的接口，包括请求响应格式和错误码')[0], 'apiDesign');
  assert.equal(ranked('Define the REST API endpoints and their error codes')[0], 'apiDesign');
});

test('requirements about tables, deployment and tests find their steps', () => {
  assert.equal(ranked('设计订单的数据库表结构和索引')[0], 'dataModel');
  assert.equal(ranked('Deploy the release to production with a rollback plan')[0], 'deployment');
  assert.equal(ranked('编写集成测试用例并记录缺陷')[0], 'testing');
});

test("scores are in 0–1, best first, and a step's own text scores 1", () => {
  const matches = rankSteps(steps, '设计订单的数据库表结构和索引，并给出接口');
  assert.ok(matches.length > 1);
  for (const m of matches) assert.ok(m.score > 0 && m.score <= 1, `${m.step.identifier}: ${m.score}`);
  for (let i = 1; i < matches.length; i += 1) assert.ok((matches[i - 1]?.score ?? 0) >= (matches[i]?.score ?? 0));
  const own = steps[4];
  assert.ok(own);
  const self = rankSteps(steps, [own.name, own.name, own.stage, own.description, ...own.rules].join('\n'))[0];
  assert.equal(self?.step.identifier, own.identifier);
  assert.equal(self?.score, 1);
});

test('matched terms name what the requirement shares with the step, heaviest first', () => {
  const top = rankSteps(steps, '数据库表结构')[0];
  assert.equal(top?.step.identifier, 'dataModel');
  assert.ok(top?.matchedTerms.includes('数据'));
  assert.ok(top?.matchedTerms.every((term) => tokenize('数据库表结构').includes(term)));
});

test('a requirement sharing no term with any step recommends nothing', () => {
  assert.deepEqual(rankSteps(steps, 'zebra xylophone quokka'), []);
  assert.deepEqual(rankSteps(steps, ''), []);
});
