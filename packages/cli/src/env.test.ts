import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { EnvError } from '@switchyard/config';
import { DEFAULT_URL, readCliEnv } from './env.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-env-'));
const keyFile = path.join(dir, 'api-key');
writeFileSync(keyFile, 'sy_local\n');

test('with nothing set, the command talks to the local stack with its key file', () => {
  assert.deepEqual(readCliEnv({}, keyFile), { url: DEFAULT_URL, key: { value: 'sy_local', from: 'local key file' }, timeoutMs: 30_000, maxFileBytes: 32 * 1024 * 1024 });
  assert.equal(readCliEnv({}, path.join(dir, 'missing')).key, undefined);
});

test('SWITCHYARD_KEY wins over the key file, and a bad variable is one error naming it', () => {
  assert.deepEqual(readCliEnv({ SWITCHYARD_KEY: 'k', SWITCHYARD_URL: 'https://api.example' }, keyFile).key, { value: 'k', from: 'SWITCHYARD_KEY' });
  assert.throws(() => readCliEnv({ SWITCHYARD_URL: 'ftp://x' }, keyFile), (e: unknown) => e instanceof EnvError && /SWITCHYARD_URL/.test(e.message));
  assert.throws(() => readCliEnv({ SWITCHYARD_TIMEOUT_MS: '5' }, keyFile), /SWITCHYARD_TIMEOUT_MS/);
});
