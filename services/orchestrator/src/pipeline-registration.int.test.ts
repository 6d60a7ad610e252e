import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { DefinitionError, parseDefinitionText, SHIPPED_PIPELINES_DIR, STEP_KINDS, validateDefinition } from '@switchyard/pipeline';
import { serviceDirectory } from '@switchyard/tool-client';
import { putPipeline, registerPipeline, startRun } from './testing/pipelines.js';
import { startTestStack, type TestStack } from './testing/stack.js';

let stack: TestStack;

before(async () => {
  stack = await startTestStack({ label: 'pipeline-registration' });
});
after(async () => {
  await stack.close();
});

const search = { tool: 'search_relevant_information', args: { topic: "'tides'" } };

type Problems = { path: string; message: string }[];

async function refused(definition: Record<string, unknown> & { name: string }): Promise<Problems> {
  const { status, body } = await putPipeline(stack, definition);
  assert.equal(status, 400, JSON.stringify(body));
  assert.equal(body.error?.code, 'invalid_pipeline');
  const listed = await stack.json(`/v1/pipelines/${definition.name}`);
  assert.equal(listed.status, 404, 'nothing was stored');
  return body.error?.details.problems ?? [];
}

const cases: [string, Record<string, unknown> & { name: string }, RegExp[]][] = [
  ['a cycle', { name: 'cyclic', steps: { a: { ...search, needs: ['b'] }, b: { ...search, needs: ['a'] } } }, [/^steps\.[ab]\.needs: cycle: (a → b → a|b → a → b)$/]],
  ['an unknown need', { name: 'needy', steps: { a: { ...search, needs: ['ghost'] } } }, [/^steps\.a\.needs\.0: needs "ghost", which is not a step/]],
  ['an unknown tool', { name: 'toolless', steps: { a: { tool: 'summon_dragon' } } }, [/^steps\.a\.tool: unknown tool summon_dragon: no configured service publishes it; .*known tools: .*search_relevant_information/]],
  ['args that break the tool\'s inputSchema', { name: 'misfit', steps: { a: { tool: 'search_relevant_information', args: { depth: 'input.depth' } }, b: { tool: 'search_relevant_information', args: { topic: "'x'", depth: 'five' } } } }, [/^steps\.a\.args: misses topic, which tool search_relevant_information requires$/]],
  ['a literal argument of the wrong type', { name: 'literal', steps: { a: { tool: 'search_relevant_information', args: { topic: "'x'", depth: 50 } } } }, [/^steps\.a\.args\.depth: 50 does not fit tool search_relevant_information's inputSchema/]],
  ['a bad expression', { name: 'garbled', steps: { a: { tool: 'search_relevant_information', args: { topic: 'input.(' } } } }, [/^steps\.a\.args\.topic: not a valid JSONata expression/]],
  ['a loop without a bound', { name: 'endless', steps: { a: { ...search, repeat: { until: 'false' } } } }, [/^steps\.a\.repeat\.max: /]],
  ['a step with both tool and uses', { name: 'both', steps: { a: { ...search, uses: 'aceflow.stage' } } }, [/^steps\.a: a step needs exactly one of `tool`, `uses`, `agent`, `wait` and `pipeline`$/]],
  ['an unknown step kind', { name: 'kindless', steps: { a: { uses: 'magic.wand' } } }, [/^steps\.a\.uses: unknown step kind magic\.wand/]],
  ['an input that is no JSON Schema', { name: 'schemaless', input: { type: 'object', properties: { a: { type: 'objectish' } } }, steps: { a: search } }, [/^input: not a valid JSON Schema/]],
  ['an input that is not an object', { name: 'scalar', input: { type: 'string' }, steps: { a: search } }, [/^input: a run's input is an object/]],
];

for (const [what, definition, expected] of cases) {
  test(`a definition with ${what} is refused with 400 naming the place, and nothing is stored`, async () => {
    const problems = await refused(definition);
    for (const pattern of expected) assert.ok(problems.some((p) => pattern.test(`${p.path}: ${p.message}`)), `${pattern} in ${JSON.stringify(problems)}`);
  });
}

test('every problem of a definition is listed at once', async () => {
  const problems = await refused({ name: 'many-faults', steps: { a: { tool: 'summon_dragon', needs: ['ghost'] }, b: { ...search, when: '((' }, c: { ...search, repeat: { until: 'x' } } } });
  // The format's problems first; the rest of the definition is checked all the same.
  assert.deepEqual(problems.map((p) => p.path), ['steps.c.repeat.max', 'steps.a.tool', 'steps.a.needs.0', 'steps.b.when'], JSON.stringify(problems));
});

test('a definition past a bound is checked all the same: the bound and the unknown references are listed together', async () => {
  const problems = await refused({
    name: 'bounded-and-lost',
    steps: {
      a: { agent: { prompt: "'p'", model: 'nomodel', max_turns: 500, tools: ['summon_dragon', { pipeline: 'ghost-pipeline' }] }, needs: ['ghost'], when: `'${'x'.repeat(4001)}'` },
      b: { tool: 'search_relevant_information', args: { topic: "'x'", list: ['y'.repeat(17_000)] }, needs: ['phantom'] },
    },
  });
  const lines = problems.map((p) => `${p.path}: ${p.message}`);
  for (const pattern of [/^steps\.a\.agent\.max_turns: /, /^steps\.a\.when: .*4000/, /^steps\.b\.args\.list: a literal value is at most 16384/, /^steps\.a\.agent\.model: no model nomodel/, /^steps\.a\.agent\.tools\.0: unknown tool summon_dragon/, /^steps\.a\.agent\.tools\.1\.pipeline: no pipeline ghost-pipeline/, /^steps\.a\.needs\.0: needs "ghost"/, /^steps\.b\.needs\.0: needs "phantom"/]) {
    assert.ok(lines.some((line) => pattern.test(line)), `${pattern} in ${lines.join('\n')}`);
  }
});

test('a definition past the bound of steps has its references checked all the same', async () => {
  const steps = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`s${i}`, { ...search, ...(i === 7 ? { needs: ['s6', 'ghost'] } : {}) }]));
  const lines = (await refused({ name: 'too-many-lost', steps })).map((p) => `${p.path}: ${p.message}`);
  assert.ok(lines.includes('steps: a pipeline has at most 200 steps'), lines.join('\n'));
  assert.ok(lines.some((line) => /^steps\.s7\.needs\.1: needs "ghost"/.test(line)), lines.join('\n'));
  assert.ok(!lines.some((line) => /"s6"/.test(line)), 'a need of a step past the bound is known');
});

test('a definition named otherwise than its URL is refused with that and its other problems together', async () => {
  const { status, body } = await stack.json<{ error: { code: string; details: { problems: { path: string; message: string }[] } } }>('/v1/pipelines/right-name', {
    method: 'PUT',
    body: JSON.stringify({ name: 'wrong-name', steps: { a: { tool: 'summon_dragon', timeout: 'soon' } } }),
  });
  assert.equal(status, 400);
  assert.equal(body.error.code, 'invalid_pipeline');
  assert.deepEqual(body.error.details.problems.map((p) => p.path), ['name', 'steps.a.timeout', 'steps.a.tool']);
  assert.match(body.error.details.problems[0]?.message ?? '', /must be right-name/);
  assert.equal((await stack.json('/v1/pipelines/right-name')).status, 404);
  assert.equal((await stack.json('/v1/pipelines/wrong-name')).status, 404);
});

test('a definition is accepted as YAML, versions are immutable, and the same definition again changes nothing', async () => {
  const yaml = ['name: versioned', 'description: two steps', 'steps:', '  find:', '    tool: search_relevant_information', '    args: { topic: "\'tides\'" }', ''].join('\n');
  const put = (body: string, type = 'application/yaml') => stack.json<{ version: number; outcome: string; error?: { code: string } }>('/v1/pipelines/versioned', { method: 'PUT', headers: { 'content-type': type }, body });
  const first = await put(yaml);
  assert.deepEqual([first.status, first.body.version, first.body.outcome], [201, 1, 'created']);
  const again = await put(yaml);
  assert.deepEqual([again.status, again.body.version, again.body.outcome], [200, 1, 'unchanged']);
  const changed = await put(yaml.replace('two steps', 'still two steps'));
  assert.deepEqual([changed.status, changed.body.version], [201, 2]);
  const rewrite = await put(`version: 1\n${yaml.replace('two steps', 'another')}`);
  assert.equal(rewrite.status, 409);
  assert.equal(rewrite.body.error?.code, 'version_conflict');
  const read = await stack.json<{ latest: number; versions: { version: number; definition: { description: string } }[] }>('/v1/pipelines/versioned');
  assert.equal(read.body.latest, 2);
  assert.deepEqual(read.body.versions.map((v) => [v.version, v.definition.description]), [[1, 'two steps'], [2, 'still two steps']]);
  const list = await stack.json<{ pipelines: { name: string; latest: number }[] }>('/v1/pipelines');
  assert.ok(list.body.pipelines.some((p) => p.name === 'story'), 'the shipped story pipeline is listed');
  assert.ok(list.body.pipelines.some((p) => p.name === 'versioned' && p.latest === 2));
  const garbled = await put('steps: [unclosed');
  assert.equal(garbled.status, 400);
});

test('a run\'s input is checked against the pipeline\'s input schema, and a 400 names the field', async () => {
  await registerPipeline(stack, { name: 'typed', input: { type: 'object', additionalProperties: false, required: ['topic'], properties: { topic: { type: 'string', minLength: 1 }, depth: { type: 'integer' } } }, steps: { a: { tool: 'search_relevant_information', args: { topic: 'input.topic' } } } });
  const missing = await stack.json<{ error: { code: string; details: { problems: { path: string }[] } } }>('/v1/pipelines/typed/runs', { method: 'POST', body: JSON.stringify({ depth: 'deep' }) });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.error.code, 'invalid_input');
  assert.deepEqual(missing.body.error.details.problems.map((p) => p.path).sort(), ['depth', 'topic']);
  const unknown = await stack.json('/v1/pipelines/nobody/runs', { method: 'POST', body: JSON.stringify({}) });
  assert.equal(unknown.status, 404);
  assert.ok(await startRun(stack, 'typed', { topic: 'tides' }));
});

test('the definition format is published as a JSON Schema, without a key', async () => {
  const res = await fetch(`${stack.api.url}/schemas/pipeline.json`);
  assert.equal(res.status, 200);
  const schema = (await res.json()) as { properties: Record<string, unknown>; required: string[] };
  assert.ok(schema.properties.steps && schema.properties.input);
  assert.ok(schema.required.includes('name'));
});

test("the shipped definitions pass every check a user's does, against the tools the reference services publish", async () => {
  const tools = serviceDirectory(stack.toolConfig);
  for (const file of ['story.yaml', 'aceflow.yaml']) {
    const raw = parseDefinitionText(readFileSync(`${SHIPPED_PIPELINES_DIR}/${file}`, 'utf8')) as { steps: Record<string, { args?: Record<string, unknown> }> };
    await validateDefinition({ raw, version: 1, tools, kinds: STEP_KINDS });
    if (file !== 'story.yaml') continue;
    // The same check refuses the story once an argument no longer fits its tool's inputSchema.
    const broken = structuredClone(raw);
    (broken.steps.write as { args: Record<string, unknown> }).args.section_name = 42;
    await assert.rejects(validateDefinition({ raw: broken, version: 1, tools, kinds: STEP_KINDS }), (error: unknown) => error instanceof DefinitionError && error.problems.some((p) => p.path === 'steps.write.args.section_name'));
  }
});
