import assert from 'node:assert/strict';
import { test } from 'node:test';
import { archiveText } from './compaction-scripts.js';

test('an archive text with cjson\'s escaped slashes reads back as JSON.stringify writes it, backslashes and UTF-8 included', () => {
  const values = { url: 'https://x.test/a/b', odd: 'a \\/ b \\\\/ c \\', text: 'é / 😀 </p>', none: 'plain' };
  // cjson escapes every `/` (JSON.stringify escapes the rest alike for these strings).
  const fromCjson = Buffer.from(JSON.stringify(values).replaceAll('/', '\\/'));
  assert.deepEqual(archiveText(fromCjson), Buffer.from(JSON.stringify(values)));
  const plain = Buffer.from('{"a":"b"}');
  assert.equal(archiveText(plain), plain, 'a text without slashes is kept as it came');
});
