import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { StageDocumentInput } from '@switchyard/contracts';
import { stageDocumentChunks, writeStageDocument } from './stage-document.js';

const templatesDir = path.join(path.dirname(createRequire(import.meta.url).resolve('@switchyard/aceflow')), '..', 'templates');
const template = (stage: string) => readFileSync(path.join(templatesDir, `${stage}.md`), 'utf8');
const analysis = { project_info: { name: 'TaskManager', tech_stack: ['Python', 'FastAPI'] }, test_metrics: { test_coverage_percent: 87.5, known_defects: [{ description: 'Login fails with an expired token', severity: 'high' }] } };

const input = (stage: string, extra: Partial<StageDocumentInput> = {}) => StageDocumentInput.parse({ stage, project_name: 'TaskManager', template: template(stage), analysis, ...extra });

test('every placeholder of every template is filled, with the project named', () => {
  for (const stage of ['s1_user_story', 's2_tasks_group', 's3_testcases', 's4_implementation', 's5_test_report', 's6_codereview', 's7_demo_script', 's8_summary_report']) {
    const { content, word_count } = writeStageDocument(input(stage));
    assert.doesNotMatch(content, /\{\{/, stage);
    assert.match(content, /TaskManager/, stage);
    assert.ok(word_count > 20, stage);
    for (const heading of template(stage).match(/^## .+$/gm) ?? []) assert.ok(content.includes(heading), `${stage} keeps ${heading}`);
  }
});

test('the test report lists an open high-severity defect until the implementation reports it fixed', () => {
  const open = writeStageDocument(input('s5_test_report')).content;
  assert.match(open, /- \[high\] Login fails with an expired token/);
  const fixedImplementation = writeStageDocument(input('s4_implementation', { feedback: { missing_elements: [], quality_issues: [], defects: [{ description: 'Login fails with an expired token', severity: 'high' }] } })).content;
  assert.match(fixedImplementation, /^- Fixed: Login fails with an expired token$/m);
  const after = writeStageDocument(input('s5_test_report', { previous_outputs: { s4_implementation: { key_points: [], content: fixedImplementation } } })).content;
  assert.doesNotMatch(after, /\[high\]/);
  assert.match(after, /- None found\./);
});

test('a missing section named by feedback is written into the next draft', () => {
  const doc = writeStageDocument(input('s1_user_story', { template: '# Stories\n\n## Personas\n{{personas}}\n', feedback: { missing_elements: ['section: Acceptance Criteria'], quality_issues: [], defects: [] } })).content;
  assert.match(doc, /^## Acceptance Criteria$/m);
});

test('chunks join back to exactly the document', () => {
  const { content } = writeStageDocument(input('s6_codereview'));
  const chunks = stageDocumentChunks(content);
  assert.ok(chunks.length > 3);
  assert.equal(chunks.join(''), content);
});
