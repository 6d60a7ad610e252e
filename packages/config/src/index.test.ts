import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { EnvError, booleanFlag, commaList, parseEnv } from './index.js';

const schema = z.object({ PORT: z.coerce.number().int().min(1).max(65535).default(8080), MODE: z.enum(['sync', 'async']).default('sync'), KEYS: commaList.default([]), DEBUG: booleanFlag.default(false) });

test('defaults apply and values are converted', () => {
  assert.deepEqual(parseEnv({ service: 's', schema, source: { PORT: '81', KEYS: 'a, b,,c', DEBUG: 'yes' } }), { PORT: 81, MODE: 'sync', KEYS: ['a', 'b', 'c'], DEBUG: true });
});

test('a bad value gives one line that names the variable and its value', () => {
  assert.throws(
    () => parseEnv({ service: 'workers', schema, source: { MODE: 'streaming' } }),
    (e: unknown) => e instanceof EnvError && /^workers: invalid environment variable MODE \("streaming"\)/.test(e.message) && !e.message.includes('\n'),
  );
});

test('an empty variable counts as unset', () => {
  assert.equal(parseEnv({ service: 's', schema, source: { PORT: '' } }).PORT, 8080);
});
