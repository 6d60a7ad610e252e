import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { compilePipeline, type CompiledPipeline, type CompiledStep } from '../definition/compile.js';
import { parseDefinitionText } from '../definition/parse-text.js';
import { validateDefinition } from '../definition/validate.js';
import { chainParentOf, jobsForStep, rootJobs } from './pipeline-runs.js';
import { SHIPPED_PIPELINES_DIR } from './shipped.js';
import type { StepJobSpec } from './step-jobs.js';

async function compile(raw: unknown): Promise<CompiledPipeline> {
  return compilePipeline(await validateDefinition({ raw, version: 1, kinds: ['aceflow.stage'] }));
}

const tool = (needs: string[] = [], extra: Record<string, unknown> = {}) => ({ service: 'search', tool: 'search_relevant_information', needs, ...extra });

/** A job tree as `step[.key](children…)`. */
function shape(jobs: readonly StepJobSpec[]): string[] {
  return jobs.map((job) => `${job.data.step}${job.data.branch ? `.${job.data.branch.key}` : ''}${job.children ? `(${shape(job.children).join(' ')})` : ''}`);
}

const jobsOf = (pipeline: CompiledPipeline, step: string) => jobsForStep({ pipeline, step: pipeline.steps.get(step) as CompiledStep, runId: 'run_1' });

test('the story starts as its outline waiting on its search, and its writers come with their polish as parent', async () => {
  const story = await compile(parseDefinitionText(readFileSync(`${SHIPPED_PIPELINES_DIR}/story.yaml`, 'utf8')));
  assert.deepEqual(shape(await rootJobs(story, 'run_1')), ['outline(search)']);
  assert.deepEqual(shape(await jobsOf(story, 'write')), ['polish(write.introduction write.development write.climax write.conclusion)']);
  // The parent is added with its children, never again by them.
  assert.equal(chainParentOf(story, 'polish'), null);
});

test('a chain of single needs is one flow, nested from its last step down to its first', async () => {
  const pipeline = await compile({ name: 'chain', steps: { a: tool(), b: tool(['a']), c: tool(['b']) } });
  assert.deepEqual(shape(await rootJobs(pipeline, 'run_1')), ['c(b(a))']);
});

test('no parent is given where a step has two dependents, a dependent needs two steps, or the dependent is a map', async () => {
  const forked = await compile({ name: 'forked', steps: { a: tool(), b: tool(['a']), c: tool(['a']) } });
  assert.deepEqual(shape(await rootJobs(forked, 'run_1')), ['a']);
  const joined = await compile({ name: 'joined', steps: { a: tool(), b: tool(), c: tool(['a', 'b']) } });
  assert.deepEqual(shape(await rootJobs(joined, 'run_1')), ['a', 'b']);
  const mapped = await compile({ name: 'mapped', steps: { a: tool(), b: tool(['a'], { map: "['x', 'y']" }) } });
  assert.deepEqual(shape(await rootJobs(mapped, 'run_1')), ['a']);
});

test('a map whose list is only known when it runs is never a child: its own job completes before its branches', async () => {
  const pipeline = await compile({ name: 'late-map', steps: { a: tool(), b: tool(['a'], { map: 'steps.a.results' }), c: tool(['b']) } });
  assert.deepEqual(shape(await jobsOf(pipeline, 'b')), ['b']);
  // Its branches are added by its own job, without a parent; the last one to end adds c.
  assert.equal(chainParentOf(pipeline, 'b')?.name, 'c');
});
