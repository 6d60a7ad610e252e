import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { compilePipeline, type CompiledPipeline, type CompiledStep } from '../definition/compile.js';
import { parseDefinitionText } from '../definition/parse-text.js';
import { validateDefinition } from '../definition/validate.js';
import { CARRIED_BYTES_MAX, carriedAtStart, carriedOf } from './carried.js';
import { jobsForStep, rootJobs } from './pipeline-runs.js';
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

test("a run's first add of the story's jobs has its search carry the request, and its outline (search's flow parent) nothing; an add made again carries nothing", async () => {
  const pipeline = await story();
  const request = { topic: 'tides' };
  const [outline] = await rootJobs(pipeline, 'run_1', undefined, undefined, undefined, { request });
  assert.equal(outline?.data.step, 'outline');
  assert.equal(outline?.data.carried, undefined);
  assert.deepEqual(outline?.children?.[0]?.data.carried, { request, inputs: {} });
  const [again] = await rootJobs(pipeline, 'run_1');
  assert.equal(again?.children?.[0]?.data.carried, undefined);
});

test("a root step carries nothing from the run's start when it is the run's last, a fallback, an agent, or its request is past the byte budget", async () => {
  const tool = { service: 'search', tool: 'search_relevant_information' };
  const alone = await compile({ name: 'alone', steps: { a: tool } });
  assert.equal(carriedAtStart(alone, stepOf(alone, 'a'), 1), undefined);
  // b runs only as a's fallback, when taken: its job is added then, with what the fallback reads.
  const guarded = await compile({ name: 'guarded', steps: { a: { ...tool, on_error: 'b' }, b: tool, c: { ...tool, needs: ['a'] } } });
  assert.equal(carriedAtStart(guarded, stepOf(guarded, 'b'), 1), undefined);
  const agents = await compile({ name: 'agents', steps: { a: { agent: { model: 'offline', prompt: 'go' } }, b: { ...tool, needs: ['a'] } } });
  assert.equal(carriedAtStart(agents, stepOf(agents, 'a'), 1), undefined);
  const chain = await compile({ name: 'chain', steps: { a: tool, b: { ...tool, needs: ['a'] } } });
  assert.deepEqual(carriedAtStart(chain, stepOf(chain, 'a'), 1)?.(1), { request: 1, inputs: {} });
  assert.equal(carriedAtStart(chain, stepOf(chain, 'a'), 'x'.repeat(CARRIED_BYTES_MAX))?.(1), undefined);
});
