import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { branchKeys } from '../engine/step-jobs.js';
import { SHIPPED_PIPELINES_DIR } from '../engine/shipped.js';
import { orderSteps } from './compile.js';
import { compileArgs, compileExpression } from './expressions.js';
import { pipelineJsonSchema } from './schema.js';
import { parseDefinitionText } from './parse-text.js';
import { validateDefinition } from './validate.js';
import { DefinitionError } from './problems.js';

const steps = (graph: Record<string, string[]>) => Object.fromEntries(Object.entries(graph).map(([name, needs]) => [name, { needs }]));

test('steps are ordered after what they need, declaration order kept among independent ones', () => {
  assert.deepEqual(orderSteps(steps({ polish: ['write'], search: [], write: ['outline'], outline: ['search'], extra: [] })).order, ['search', 'outline', 'write', 'polish', 'extra']);
});

test('a cycle is reported with the steps that form it', () => {
  const { problems } = orderSteps(steps({ a: ['c'], b: ['a'], c: ['b'] }));
  assert.equal(problems.length, 1);
  assert.match(problems[0]?.message ?? '', /^cycle: a → c → b → a$/);
});

test('an args object takes expressions for strings, literals otherwise, and leaves absent values out', async () => {
  const args = compileArgs({ topic: 'input.topic', depth: 3, nested: { title: "'T'", flag: true }, style: 'input.style' }, 'steps.x.args');
  // Compared as JSON, as arguments are sent: JSONata's objects carry no prototype.
  assert.deepEqual(JSON.parse(JSON.stringify(await args.evaluate({ input: { topic: 'tides' }, steps: {}, run_id: 'r' }))), { topic: 'tides', depth: 3, nested: { title: 'T', flag: true } });
});

test('arguments are had at once when every expression runs as plain JavaScript, and wait for JSONata otherwise', async () => {
  const context = { input: { x: 'tides' }, steps: {}, run_id: 'r' };
  const plain = compileArgs({ a: 'input.x', n: 2 }, 'steps.x.args').evaluate(context);
  assert.ok(!(plain instanceof Promise));
  assert.deepEqual(plain, { a: 'tides', n: 2 });
  const mixed = compileArgs({ a: 'input.x', sum: '$sum([1, 2])' }, 'steps.x.args').evaluate(context);
  assert.ok(mixed instanceof Promise);
  assert.deepEqual(await mixed, { a: 'tides', sum: 3 });
});

test('arguments that wait for JSONata read each plain value once', async () => {
  let reads = 0;
  const input = {
    get x() {
      reads += 1;
      return 'tides';
    },
  };
  const mixed = compileArgs({ a: 'input.x', sum: '$sum([1, 2])' }, 'steps.x.args');
  assert.deepEqual(await mixed.evaluate({ input, steps: {}, run_id: 'r' }), { a: 'tides', sum: 3 });
  assert.equal(reads, 1);
});

test('plain paths are read as JSONata reads them, a list on the way included', async () => {
  const args = compileArgs({ words: 'steps.write.word_count', first: 'steps.write[0].word_count', title: 'steps.outline.title', missing: 'steps.none.x', quoted: "'as is'" }, 'steps.x.args');
  const context = { input: {}, steps: { write: [{ word_count: 3 }, { word_count: 4 }], outline: { title: 'T' } }, run_id: 'r' };
  assert.deepEqual(JSON.parse(JSON.stringify(await args.evaluate(context))), { words: [3, 4], first: 3, title: 'T', quoted: 'as is' });
});

test('a $lookup of a path by a path gives what JSONata gives, whatever the values', async () => {
  const source = '$lookup(steps.outline.sections, item)';
  const args = compileArgs({ value: source }, 'steps.x.args');
  const expression = compileExpression(source, 'steps.x.args.value');
  const sections = { climax: { title: 'C', characters: ['a', 'b'] }, list: [1, 2], one: [7], constructor: 'own' };
  const cases: [string, unknown, unknown][] = [
    ['a section', sections, 'climax'],
    ['a list value', sections, 'list'],
    ['a one-item list', sections, 'one'],
    ['an own field named like a prototype one', sections, 'constructor'],
    ['a missing key', sections, 'nope'],
    ['an inherited name', { a: 1 }, 'toString'],
    ['a number key', sections, 3],
    ['a list to look in', [{ climax: 1 }, { climax: 2 }], 'climax'],
    ['nothing to look in', undefined, 'climax'],
    ['null to look in', null, 'climax'],
  ];
  for (const [label, object, item] of cases) {
    const context = { input: {}, steps: object === undefined ? {} : { outline: { sections: object } }, run_id: 'r', item };
    const expected = await expression.evaluate(context).then((v) => JSON.stringify(v), (e: Error) => `error ${e.message}`);
    const got = await Promise.resolve(context).then((c) => args.evaluate(c)).then((v) => JSON.stringify(v.value), (e: Error) => `error ${e.message}`);
    assert.equal(got, expected, label);
  }
});

test('an expression knows which names it reads', () => {
  const expression = compileExpression('$count(steps.search.results) + input.depth', 'x');
  assert.ok(expression.names('steps') && expression.names('input'));
  assert.ok(!compileExpression("['a', 'b']", 'x').names('steps'));
});

test('map branches are named by their items when those are distinct plain strings, else by index', () => {
  assert.deepEqual(branchKeys(['introduction', 'climax']), ['introduction', 'climax']);
  assert.deepEqual(branchKeys(['a lake', 'b']), ['0', '1']);
  assert.deepEqual(branchKeys(['a', 'a']), ['0', '1']);
  assert.deepEqual(branchKeys([{ x: 1 }]), ['0']);
});

test('the published JSON Schema is the one generated from the definition schema', () => {
  const published = JSON.parse(readFileSync(`${SHIPPED_PIPELINES_DIR}/pipeline.schema.json`, 'utf8')) as unknown;
  assert.deepEqual(published, pipelineJsonSchema(), 'run `npx tsx scripts/pipeline-schema.ts` to regenerate pipelines/pipeline.schema.json');
});

test('the shipped definitions are valid, each naming the services of its tools', async () => {
  for (const file of ['story.yaml', 'aceflow.yaml']) {
    const raw = parseDefinitionText(readFileSync(`${SHIPPED_PIPELINES_DIR}/${file}`, 'utf8'));
    const stored = await validateDefinition({ raw, version: 1, kinds: ['aceflow.stage'] });
    assert.ok(Object.keys(stored.definition.steps).length >= 4, file);
  }
});

test('a definition broken in places is still checked everywhere else, with nothing said of what was left out or stood in for', async () => {
  const raw = {
    name: 'partly-broken',
    input: 'not a schema',
    steps: {
      // Its timeout is left out, and the rest of it is checked.
      trimmed: { uses: 'aceflow.stage', timeout: 'soon', when: '((' },
      // Not a step even without a field: a stand-in that needs nothing takes its place.
      stoodIn: { tool: 'search', uses: 'aceflow.stage' },
      after: { uses: 'aceflow.stage', needs: ['stoodIn', 'ghost'], args: { x: '$$$(' } },
    },
  };
  const error = await validateDefinition({ raw, version: 1, kinds: ['aceflow.stage'] }).then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof DefinitionError);
  const paths = error.problems.map((p) => p.path);
  // The format's problems first, then the rest.
  assert.deepEqual(paths.slice(0, 3).sort(), ['input', 'steps.stoodIn', 'steps.trimmed.timeout']);
  assert.deepEqual(paths.slice(3).sort(), ['steps.after.args.x', 'steps.after.needs.1', 'steps.trimmed.when']);
  assert.match(error.problems.find((p) => p.path === 'steps.trimmed.timeout')?.message ?? '', /such as 500ms, 30s or 2m/);
});

test('a missing field is said to be required', async () => {
  const error = await validateDefinition({ raw: { name: 'loopy', steps: { a: { uses: 'aceflow.stage', repeat: { until: 'true' } } } }, version: 1, kinds: ['aceflow.stage'] }).then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof DefinitionError);
  assert.deepEqual(error.problems.map((p) => [p.path, p.message]), [['steps.a.repeat.max', 'required (number)']]);
});
