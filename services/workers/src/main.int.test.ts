/**
 * The worker preflight: it succeeds when Redis and every tool service answer, and fails when one
 * service is down.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { createLogger } from '@switchyard/logger';
import { testRedis } from '@switchyard/redis';
import { createOfflineAuthor, startToolServices, type ToolServicesStack } from '@switchyard/tool-services';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));
let stack: ToolServicesStack;

before(async () => {
  stack = await startToolServices({ author: createOfflineAuthor(), logger: createLogger({ name: 'test', level: 'silent' }), apiKeys: ['wk'] });
});
after(() => stack.close());

async function preflight(overrides: Record<string, string> = {}): Promise<number> {
  const redis = await testRedis();
  const child = spawn(process.execPath, ['--import', 'tsx', main], {
    env: {
      PATH: process.env.PATH ?? '',
      REDIS_URL: redis.url,
      LOG_LEVEL: 'silent',
      TOOL_SERVICE_API_KEY: 'wk',
      SEARCH_SERVICE_URL: stack.services.search.url,
      OUTLINE_SERVICE_URL: stack.services.outline.url,
      WRITING_SERVICE_URL: stack.services.writing.url,
      EDITING_SERVICE_URL: stack.services.editing.url,
      ...overrides,
    },
    stdio: 'ignore',
  });
  const [code] = (await once(child, 'exit')) as [number];
  return code;
}

test('the preflight passes when Redis and every tool service answer', async () => {
  assert.equal(await preflight(), 0);
});

test('the preflight fails when a tool service is down', async () => {
  assert.equal(await preflight({ EDITING_SERVICE_URL: 'http://127.0.0.1:9' }), 1);
});

test('the preflight fails when a tool service does not publish the expected tool', async () => {
  assert.equal(await preflight({ EDITING_SERVICE_URL: stack.services.search.url }), 1);
});
