import assert from 'node:assert/strict';
import { test } from 'node:test';
import { servingLines } from './serving.js';

const stack = { apiUrl: 'http://127.0.0.1:8080', mcpUrl: 'http://127.0.0.1:8090/mcp' };

test('a key the operator set in API_KEYS is never printed, and the lines say where it is', () => {
  const text = servingLines(stack, { kind: 'operator' }).join('\n');
  assert.match(text, /API key: one of yours in API_KEYS \(not printed\)/);
  assert.match(text, /Bearer <your key>/);
});

test('the local key the launcher made is printed with the file that holds it', () => {
  const text = servingLines(stack, { kind: 'local', key: 'sy_local', file: '.data/api-key' }).join('\n');
  assert.match(text, /API key: sy_local {3}\(made by the launcher, kept in \.data\/api-key\)/);
  assert.match(text, /Bearer sy_local/);
});
