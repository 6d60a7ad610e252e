import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { startTestStack, waitFor, type TestStack } from '@switchyard/orchestrator/testing';
import { REPO_ROOT } from '@switchyard/redis';
import { ToolInputError } from '@switchyard/tool-client';
import { McpToolSource } from './source.js';

let stack: TestStack;
let source: McpToolSource;
let stderr = '';

before(async () => {
  stack = await startTestStack({ label: 'mcp-tools-stdio' });
  // The bridge as a local agent starts it, now with the source as the agent.
  source = new McpToolSource({
    name: 'bridge-stdio',
    server: {
      command: process.execPath,
      args: ['--import', 'tsx', 'services/mcp-bridge/src/stdio.ts'],
      cwd: REPO_ROOT,
      env: {
        REDIS_URL: stack.redisUrl,
        QUEUE_PREFIX: stack.prefix,
        LOG_LEVEL: 'warn',
        SEARCH_SERVICE_URL: stack.toolConfig.services.search.url,
        OUTLINE_SERVICE_URL: stack.toolConfig.services.outline.url,
        WRITING_SERVICE_URL: stack.toolConfig.services.writing.url,
        EDITING_SERVICE_URL: stack.toolConfig.services.editing.url,
        TOOL_SERVICE_API_KEY: stack.toolConfig.apiKey ?? '',
      },
    },
    retry: { retries: 4, minDelayMs: 50, maxDelayMs: 300 },
    onStderr: (text) => void (stderr += text),
  });
  await source.start();
});
after(async () => {
  await source.close();
  await stack.close();
});

/** The bridge processes this test process started (node … stdio.ts). */
const bridgeChildren = () =>
  execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('mcp-bridge/src/stdio.ts'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));

test('over stdio the source lists the bridge\'s tools and calls a reading tool for its structured result', async () => {
  assert.ok(source.tools().some((tool) => tool.name === 'list_pipelines'));
  const result = await source.call({ tool: 'list_pipelines', arguments: {} });
  assert.ok((result.structuredContent as { pipelines: { name: string }[] }).pipelines.some((p) => p.name === 'story'));
  await assert.rejects(source.call({ tool: 'get_pipeline', arguments: {} }), (error: unknown) => error instanceof ToolInputError && /required property 'name'/.test(error.message));
  assert.equal(stderr, '', 'nothing was logged at warn or above');
});

/** Whether a process of this pid exists, a zombie included. */
function processExists(pid: number): boolean {
  try {
    execFileSync('ps', ['-o', 'pid=', '-p', String(pid)], { encoding: 'utf8' });
    return true;
  } catch {
    return false;
  }
}

test('a stdio server that dies is started again and the next call succeeds', async () => {
  const [pid] = bridgeChildren();
  assert.ok(pid, 'the bridge runs as a child process');
  process.kill(pid, 'SIGKILL');
  // Gone and reaped (no longer a zombie): this process has seen it end, as the source then has.
  await waitFor(async () => processExists(pid), (exists) => !exists, 'the killed bridge is gone', 5_000);
  const result = await source.call({ tool: 'list_pipelines', arguments: {} });
  assert.ok((result.structuredContent as { pipelines: unknown[] }).pipelines.length > 0);
  const [restarted] = bridgeChildren();
  assert.ok(restarted && restarted !== pid, 'a new bridge process answered');
});
