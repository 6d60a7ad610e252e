import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPipelineRun } from '../engine/pipeline-runs.js';
import { compilePipeline } from './compile.js';
import { fallbackProblems } from './fallbacks.js';
import { PipelineDefinition } from './schema.js';

const compiled = (steps: Record<string, unknown>) => {
  const definition = { ...PipelineDefinition.parse({ name: 'fb-unit', steps }), version: 1 };
  return compilePipeline({ definition, services: Object.fromEntries(Object.keys(steps).map((name) => [name, 'search'])), registered_at: '' });
};
const tool = (more: Record<string, unknown> = {}) => ({ tool: 'search_relevant_information', args: { topic: "'t'" }, ...more });

test('a fallback step is kept out of the graph: no root, no dependent, no stage of a new run', async () => {
  const pipeline = compiled({ a: tool({ on_error: 'spare' }), spare: tool(), b: tool({ needs: ['a'] }) });
  assert.deepEqual(pipeline.order, ['a', 'b']);
  assert.deepEqual(pipeline.roots, ['a']);
  assert.equal(pipeline.finalStep, 'b');
  assert.deepEqual([...pipeline.fallbacks], [['spare', 'a']]);
  assert.ok(pipeline.steps.get('spare'), 'it is compiled, to run when taken');
  const run = await newPipelineRun(pipeline, {}, 'run_fb_unit');
  assert.deepEqual(run.stages, ['a', 'b']);
});

test('a fallback may need what its step needs, and nothing else', () => {
  const steps = { x: { needs: [] }, y: { needs: [] }, a: { needs: ['x'], on_error: 'spare' }, spare: { needs: ['x', 'y'] } };
  assert.deepEqual(fallbackProblems(steps).map((p) => p.path), ['steps.spare.needs.1']);
});

test('a chain of fallbacks is refused at its second link, a cycle once, and a map on either side', () => {
  const problems = fallbackProblems({
    a: { needs: [], on_error: 'b' },
    b: { needs: [], on_error: 'c' },
    c: { needs: [] },
    d: { needs: [], on_error: 'e' },
    e: { needs: [], on_error: 'd' },
    m: { needs: [], map: 'input.list', on_error: 'c2' },
    c2: { needs: [] },
  });
  const paths = problems.map((p) => `${p.path}: ${p.message}`);
  assert.ok(paths.some((p) => p.startsWith('steps.b.on_error: b is the fallback of another step')), paths.join('\n'));
  assert.equal(paths.filter((p) => p.includes('fallback cycle')).length, 1, paths.join('\n'));
  assert.ok(paths.some((p) => p.startsWith('steps.m.on_error: a map step takes no on_error')), paths.join('\n'));
});
