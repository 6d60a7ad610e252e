import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { InputError } from './errors.js';
import { checkDepth, formatOf, parseText, readBatchFile, readDefinitionFile, readInputFile, runInput } from './input.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-input-'));
const file = (name: string, text: string) => {
  const at = path.join(dir, name);
  writeFileSync(at, text);
  return at;
};
const MB = 1024 * 1024;

test('--set fields go over --input, dotted keys nest, and a value is JSON when it reads as JSON', () => {
  const input = runInput({ input: '{"topic":"a mill","style":"concise"}', set: ['topic=a tide clock', 'depth=3', 'focus.areas=["sea"]', 'quoted="5"', 'eq=a=b'] }, MB);
  assert.deepEqual(input, { topic: 'a tide clock', style: 'concise', depth: 3, focus: { areas: ['sea'] }, quoted: '5', eq: 'a=b' });
});

test('an input comes from a JSON or YAML file, and must be an object', () => {
  assert.deepEqual(runInput({ inputFile: file('in.yaml', 'topic: a bell\naudience: kids\n') }, MB), { topic: 'a bell', audience: 'kids' });
  assert.deepEqual(runInput({ inputFile: file('in.json', '{"topic":"a kite"}'), set: ['audience=adults'] }, MB), { topic: 'a kite', audience: 'adults' });
  assert.throws(() => runInput({ input: '"text"' }, MB), /--input: the input must be an object/);
  assert.throws(() => runInput({ set: ['__proto__.polluted=1'] }, MB), /is not a field name/);
  assert.throws(() => runInput({ set: ['a=1', 'a.b=2'] }, MB), /"a" is already set to a value that is not an object/);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('a file is refused by its size before it is read, by its kind, and when it is missing', () => {
  const big = file('big.json', `"${'x'.repeat(2000)}"`);
  assert.throws(() => readInputFile(big, 1000), (e: unknown) => e instanceof InputError && /big\.json: 2002 bytes, over the limit of 1000/.test(e.message));
  assert.throws(() => readInputFile(dir, MB), /not a regular file/);
  assert.throws(() => readInputFile(path.join(dir, 'nope.json'), MB), /nope\.json: no such file/);
});

test('nesting is bounded without recursion, however deep the value', () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i += 1) deep = [deep];
  assert.throws(() => checkDepth(deep, 'x'), /x: nested deeper than 64 levels/);
  assert.doesNotThrow(() => checkDepth([[[1]]], 'x', 3));
  assert.throws(() => checkDepth([[[[1]]]], 'x', 3), /deeper than 3/);
  assert.throws(() => parseText(`${'['.repeat(100_000)}${']'.repeat(100_000)}`, 'json', 'deep.json'), /deep\.json: (nested deeper|not valid JSON)/);
});

test('YAML and JSON errors name the file, and the place in it', () => {
  assert.throws(() => parseText('a: [1,\n', 'yaml', 'x.yaml'), /x\.yaml: not valid YAML \(.*line/);
  assert.throws(() => parseText('{"a":', 'json', 'x.json'), /x\.json: not valid JSON/);
  assert.throws(() => parseText('{"a":1}\nnope\n', 'jsonl', 'x.jsonl'), /x\.jsonl line 2: not valid JSON/);
  // Aliases past the YAML parser's count are refused, not expanded (a billion laughs).
  const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]', ...Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9).fill(`*${String.fromCharCode(97 + i)}`).join(',')}]`)].join('\n');
  assert.throws(() => parseText(laughs, 'yaml', 'laughs.yaml'), /laughs\.yaml: not valid YAML/);
});

test('a batch file is a list, JSON lines, or a request body with items, defaults and pipeline', () => {
  assert.deepEqual(readBatchFile(file('list.json', '[{"topic":"a"},{"topic":"b"}]'), MB).items, [{ topic: 'a' }, { topic: 'b' }]);
  assert.deepEqual(readBatchFile(file('lines.jsonl', '{"topic":"a"}\n\n{"topic":"b"}\n'), MB).items.length, 2);
  assert.deepEqual(readBatchFile(file('body.yaml', 'pipeline: section-review\ndefaults: {audience: kids}\nitems:\n  - topic: a\n'), MB), { items: [{ topic: 'a' }], defaults: { audience: 'kids' }, pipeline: 'section-review' });
  assert.throws(() => readBatchFile(file('empty.json', '[]'), MB), /no items/);
  assert.throws(() => readBatchFile(file('scalars.json', '[1]'), MB), /item 1 is not an object/);
});

test("a definition file is sent as written, and its name is read from it", () => {
  const yaml = 'name: my-pipe\nsteps: {}\n';
  assert.deepEqual(readDefinitionFile(file('d.yml', yaml), MB), { text: yaml, format: 'yaml', name: 'my-pipe' });
  assert.equal(readDefinitionFile(file('d.json', '{"steps":{}}'), MB).name, undefined);
  assert.equal(formatOf('x.NDJSON'), 'jsonl');
  assert.equal(formatOf('x'), 'yaml');
});
