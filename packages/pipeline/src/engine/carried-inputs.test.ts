import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { compilePipeline, type CompiledPipeline, type CompiledStep } from '../definition/compile.js';
import { parseDefinitionText } from '../definition/parse-text.js';
import { validateDefinition } from '../definition/validate.js';
import { CARRIED_BYTES_MAX, carriedOf } from './advance.js';
import { jobsForStep } from './pipeline-runs.js';
import { SHIPPED_PIPELINES_DIR } from './shipped.js';
import type { StepJobSpec } from './step-jobs.js';

async function compile(raw: unknown): Promise<CompiledPipeline> {
  return compilePipeline(await validateDefinition({ raw, version: 1, kinds: ['aceflow.stage'] }));
}

const story = async () => compile(parseDefinitionText(readFileSync(`${SHIPPED_PIPELINES_DIR}/story.yaml`, 'utf8')));
const stepOf = (pipeline: CompiledPipeline, name: string) => pipeline.steps.get(name) as CompiledStep;
const known = { request: { topic: 'tides' }, outputs: { search: { results: [] }, outline: { title: 'Tides' } } };
const leaves = (jobs: readonly StepJobSpec[]): StepJobSpec[] => jobs.flatMap((job) => (job.children ? leaves(job.children) : [job]));

test('the story\'s writers, added once the outline is done, carry the request and the outline; their polish carries nothing', async () => {
  const pipeline = await story();
  const jobs = await jobsForStep({ pipeline, step: stepOf(pipeline, 'write'), runId: 'run_1', carried: carriedOf(pipeline, stepOf(pipeline, 'write'), 'running', known) });
  assert.equal(jobs.length, 1);
  assert.equal(jobs[0]?.data.step, 'polish');
  assert.equal(jobs[0]?.data.carried, undefined);
  const writers = leaves(jobs);
  assert.equal(writers.length, 4);
  for (const writer of writers) assert.deepEqual(writer.data.carried, { request: known.request, inputs: { outline: known.outputs.outline } });
});

test('nothing is carried for a run not running, a need not known, the run\'s last step, an agent, or past the byte budget', async () => {
  const pipeline = await story();
  const write = stepOf(pipeline, 'write');
  assert.equal(carriedOf(pipeline, write, 'queued', known), undefined);
  assert.equal(carriedOf(pipeline, write, 'running', { request: null, outputs: { search: null } }), undefined);
  assert.equal(carriedOf(pipeline, write, 'running', undefined), undefined);
  assert.equal(carriedOf(pipeline, stepOf(pipeline, 'polish'), 'running', { request: null, outputs: { write: [] } }), undefined);
  const agents = await compile({ name: 'agents', steps: { a: { service: 'search', tool: 'search_relevant_information' }, b: { agent: { model: 'offline', prompt: 'go' }, needs: ['a'] }, c: { service: 'search', tool: 'search_relevant_information', needs: ['b'] } } });
  assert.equal(carriedOf(agents, stepOf(agents, 'b'), 'running', { request: null, outputs: { a: 1 } }), undefined);
  // Four branches share the budget: an outline a quarter of it is too much for each.
  const big = { request: null, outputs: { outline: 'x'.repeat(CARRIED_BYTES_MAX / 4) } };
  assert.equal(carriedOf(pipeline, write, 'running', big)?.(4), undefined);
  assert.ok(carriedOf(pipeline, write, 'running', big)?.(1));
});

test('a step needing two steps carries nothing, as both may add it', async () => {
  const pipeline = await compile({ name: 'joins', steps: { a: { service: 'search', tool: 'search_relevant_information' }, b: { service: 'search', tool: 'search_relevant_information' }, c: { service: 'search', tool: 'search_relevant_information', needs: ['a', 'b'] }, d: { service: 'search', tool: 'search_relevant_information', needs: ['c'] }, e: { service: 'search', tool: 'search_relevant_information', needs: ['d'] } } });
  assert.equal(carriedOf(pipeline, stepOf(pipeline, 'c'), 'running', { request: 1, outputs: { a: 1, b: 2 } }), undefined);
  assert.deepEqual(carriedOf(pipeline, stepOf(pipeline, 'd'), 'running', { request: 1, outputs: { a: 1, b: 2, c: 3 } })?.(1), { request: 1, inputs: { c: 3 } });
});
