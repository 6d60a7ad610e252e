import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { countingAuthor } from '../../services/orchestrator/src/testing/authors.js';
import { readSse } from '../../services/orchestrator/src/testing/events.js';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

const author = countingAuthor();
let stack: TestStack;
before(async () => {
  stack = await startTestStack({ label: 'aceflow-run', author, aceflow: { maxRegenerations: 2, maxDefectLoops: 2 } });
});
after(() => stack.close());

const ANALYSIS = {
  project_info: { name: 'TaskManager', tech_stack: ['Python', 'FastAPI', 'Vue3'], file_count: 42 },
  code_metrics: { total_lines: 5200, complexity_score: 6.5 },
  test_metrics: { total_tests: 25, test_coverage_percent: 87.5 },
};

interface RunBody {
  run_id: string;
  status: string;
  stages: { name: string; status: string; attempts: number }[];
  error: { code: string; stage: string; message: string } | null;
  result: { stages: Record<string, { completeness_score: number; drafts: number; defect_loops: number; saved_to: string }> } | null;
}

async function startPipeline(body: unknown): Promise<string> {
  const created = await stack.json<{ run_id: string; stages: string[] }>('/v1/aceflow/runs', { method: 'POST', body: JSON.stringify(body) });
  assert.equal(created.status, 202, JSON.stringify(created.body));
  return created.body.run_id;
}

const finish = async (runId: string) => (await stack.waitForRun(runId, 60_000)) as unknown as RunBody;

test('a complete-mode pipeline goes from the analysis through all eight stages, each saved and valid', async () => {
  const runId = await startPipeline({ project: { name: 'task-manager', mode: 'complete' }, analysis: ANALYSIS });
  const run = await finish(runId);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.deepEqual(run.stages.map((s) => s.name), ['s1_user_story', 's2_tasks_group', 's3_testcases', 's4_implementation', 's5_test_report', 's6_codereview', 's7_demo_script', 's8_summary_report']);
  assert.ok(run.stages.every((s) => s.status === 'completed'));
  for (const [stage, output] of Object.entries(run.result?.stages ?? {})) {
    assert.equal(output.completeness_score, 1, stage);
    const file = path.join(stack.aceflowRoot, 'task-manager', 'aceflow_result', `${stage}.md`);
    assert.ok(existsSync(file), `${stage} written to its workspace`);
    assert.match(readFileSync(file, 'utf8'), /TaskManager|task-manager/);
  }
  const events = await readSse(await stack.request(`/v1/runs/${runId}/events`));
  assert.ok(events.some((e) => e.event === 'content'), 'the stage documents stream as content events');
  assert.equal(events.at(-1)?.event, 'done');
});

test('a draft that validation finds incomplete is sent back to the writer and written again', async (t) => {
  let cut = 1;
  author.editStageDocument = (input, output) => {
    if (input.stage !== 's1_user_story' || cut === 0) return output;
    cut -= 1;
    // Drop the last section, as a careless writer would.
    const content = output.content.slice(0, output.content.lastIndexOf('\n## '));
    return { content, word_count: content.split(/\s+/).length };
  };
  t.after(() => (author.editStageDocument = undefined));
  const runId = await startPipeline({ project: { name: 'regenerated', mode: 'minimal' }, analysis: ANALYSIS, to_stage: 's1_user_story' });
  const run = await finish(runId);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.equal(run.result?.stages.s1_user_story?.drafts, 2);
  const events = await readSse(await stack.request(`/v1/runs/${runId}/events`));
  const feedback = events.filter((e) => e.event === 'error').map((e) => JSON.parse(e.data) as { code: string; details: { missing_elements: string[] } });
  assert.equal(feedback.length, 1);
  assert.equal(feedback[0]?.code, 'validation_incomplete');
  assert.ok((feedback[0]?.details.missing_elements.length ?? 0) > 0, 'validation named what was missing');
  assert.equal(events.filter((e) => e.event === 'reset').length, 1, 'the second draft replaces the first');
});

test('a stage that stays incomplete after its regenerations fails the run', async (t) => {
  author.editStageDocument = (input, output) => (input.stage === 's1_user_story' ? { content: '# Nothing useful\n', word_count: 3 } : output);
  t.after(() => (author.editStageDocument = undefined));
  const before = author.stageDocuments.length;
  const run = await finish(await startPipeline({ project: { name: 'hopeless', mode: 'minimal' }, analysis: ANALYSIS }));
  assert.equal(run.status, 'failed');
  assert.equal(run.error?.code, 'VALIDATION_FAILED');
  assert.equal(run.error?.stage, 's1_user_story');
  assert.equal(author.stageDocuments.length - before, 3, 'the first draft and two regenerations');
  assert.equal(run.stages.find((s) => s.name === 's2_tasks_group')?.status, 'cancelled');
});

const DEFECT = { description: 'Login fails with an expired token', severity: 'high' };

test('a high-severity defect in the test report sends the pipeline back to the implementation, which fixes it', async () => {
  const before = author.stageDocuments.length;
  const runId = await startPipeline({ project: { name: 'defects-fixed', mode: 'minimal' }, analysis: { ...ANALYSIS, test_metrics: { ...ANALYSIS.test_metrics, known_defects: [DEFECT] } } });
  const run = await finish(runId);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.deepEqual(author.stageDocuments.slice(before), ['s1_user_story', 's2_tasks_group', 's4_implementation', 's5_test_report', 's4_implementation', 's5_test_report']);
  assert.equal(run.result?.stages.s5_test_report?.defect_loops, 1);
  assert.equal(run.stages.find((s) => s.name === 's4_implementation')?.attempts, 2);
  const report = readFileSync(path.join(stack.aceflowRoot, 'defects-fixed', 'aceflow_result', 's5_test_report.md'), 'utf8');
  assert.doesNotMatch(report, /\[high\]/);
});

test('the return to the implementation is bounded: a defect that is never fixed fails the run', async (t) => {
  // An implementation that ignores what it is told to fix.
  author.editStageDocument = (input, output) => (input.stage === 's4_implementation' ? { ...output, content: output.content.replace(/^- Fixed: .*$/gm, '') } : output);
  t.after(() => (author.editStageDocument = undefined));
  const before = author.stageDocuments.length;
  const run = await finish(await startPipeline({ project: { name: 'defects-stay', mode: 'minimal' }, analysis: { ...ANALYSIS, test_metrics: { ...ANALYSIS.test_metrics, known_defects: [DEFECT] } } }));
  assert.equal(run.status, 'failed');
  assert.equal(run.error?.code, 'DEFECT_LOOP_EXHAUSTED');
  assert.equal(run.error?.stage, 's5_test_report');
  const written = author.stageDocuments.slice(before);
  assert.equal(written.filter((s) => s === 's4_implementation').length, 3, 'the first implementation and two returns');
  assert.equal(written.filter((s) => s === 's5_test_report').length, 3);
});

test('bad pipeline requests are refused with a clear 400 and start nothing', async () => {
  for (const [body, pattern] of [
    [{ project: { name: '../escape' } }, /project\.name/],
    [{ project: { name: 'ok', mode: 'fast' } }, /project\.mode/],
    [{ project: { name: 'ok', mode: 'minimal' }, from_stage: 's3_testcases' }, /not a stage of mode minimal/],
    [{ project: { name: 'ok' }, from_stage: 's5_test_report', to_stage: 's2_tasks_group' }, /comes after/],
    [{ project: { name: 'ok' }, analysis: { code_metrics: { complexity_score: 25 } } }, /complexity_score/],
    [{ project: { name: 'ok' }, extra: true }, /extra/],
  ] as const) {
    const res = await stack.json<{ error: { code: string; message: string } }>('/v1/aceflow/runs', { method: 'POST', body: JSON.stringify(body) });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.match(JSON.stringify(res.body.error), pattern);
  }
});

test('the pipeline picks the same stages for each mode as the AceFlow engine', async () => {
  const { ACEFLOW_MODE_STAGES } = await import('@switchyard/pipeline');
  const { stagesForMode, MODES } = await import('@switchyard/aceflow');
  for (const mode of MODES) assert.deepEqual([...ACEFLOW_MODE_STAGES[mode]], [...stagesForMode(mode)], mode);
});
