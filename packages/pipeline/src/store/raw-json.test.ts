import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RawJson, rawJsonBytes, stringifyWithRaw } from './raw-json.js';

test('stored JSON text is written into an answer as it is, not parsed and written out again', () => {
  const stored = '{"text":"a \\"quoted\\" word","n":[1,2]}';
  const view = { run_id: 'run_1', request: new RawJson(stored), result: null, note: 'sy-raw-lookalike-0' };
  const text = stringifyWithRaw(view);
  assert.equal(text, `{"run_id":"run_1","request":${stored},"result":null,"note":"sy-raw-lookalike-0"}`);
  assert.deepEqual(JSON.parse(text), { run_id: 'run_1', request: JSON.parse(stored), result: null, note: 'sy-raw-lookalike-0' });
  assert.equal(rawJsonBytes(view), Buffer.byteLength(text));
  assert.equal(stringifyWithRaw({ plain: [1, 'two'] }), JSON.stringify({ plain: [1, 'two'] }));
});
