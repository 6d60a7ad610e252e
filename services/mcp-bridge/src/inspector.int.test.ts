/**
 * The README's MCP Inspector commands, run as the README writes them (its code block, read from
 * the file), on this Node: only the bridge's address, the key, the run id and the Redis settings
 * are the test's own. They list the tools, start a story, wait for it, and list the tools over stdio.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createLogger } from '@switchyard/logger';
import { startTestStack, TEST_API_KEY, type TestStack } from '@switchyard/orchestrator/testing';
import { REPO_ROOT } from '@switchyard/redis';
import { startBridgeHttp, type RunningBridge } from './http/serve.js';

const README = path.join(REPO_ROOT, 'services/mcp-bridge/README.md');

/** The commands of the README's "MCP Inspector (CLI)" block, one per line, comments and the KEY line left out. */
function inspectorCommands(): string[] {
  const text = readFileSync(README, 'utf8');
  const block = /### MCP Inspector \(CLI\)[\s\S]*?```sh\n([\s\S]*?)\n```/.exec(text)?.[1];
  assert.ok(block, 'the README has an MCP Inspector block');
  return block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .filter((line) => line.startsWith('npx '));
}

function bash(command: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let stack: TestStack;
let bridge: RunningBridge;
before(async () => {
  stack = await startTestStack({ label: 'mcp-inspector' });
  bridge = await startBridgeHttp({ redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: [TEST_API_KEY], logger: createLogger({ name: 'mcp-bridge', level: 'silent' }) });
});
after(async () => {
  await bridge.close();
  await stack.close();
});

test('the README\'s MCP Inspector commands work as written on this Node: list tools, start a story, wait for it, list over stdio', async () => {
  const commands = inspectorCommands();
  assert.equal(commands.length, 4, commands.join('\n'));
  const pinned = /npx (@modelcontextprotocol\/inspector@\d+\.\d+\.\d+) /.exec(commands[0] ?? '')?.[1];
  assert.ok(pinned && commands.every((c) => c.includes(`npx ${pinned} `)), 'every command names the same pinned Inspector version');
  // The npm registry is where the README sends users for it: not reaching it is a failure, not a skip.
  const fetched = spawnSync('npx', ['-y', pinned, '--cli', '--help'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 180_000 });
  assert.equal(fetched.status, 0, `npx ${pinned} --cli --help in the checkout: ${fetched.stderr.slice(-2000)}`);
  const env = { ...process.env, KEY: TEST_API_KEY, npm_config_yes: 'true' };
  const local = (command: string) => command.replaceAll('http://127.0.0.1:8090/mcp', bridge.mcpUrl).replace('REDIS_URL=redis://127.0.0.1:6379', `REDIS_URL=${stack.redisUrl}`).replace('QUEUE_PREFIX=sy', `QUEUE_PREFIX=${stack.prefix}`);

  const [list, start, wait, stdio] = commands.map(local) as [string, string, string, string];
  const listed = await bash(list, env);
  assert.equal(listed.code, 0, listed.stderr);
  assert.ok((JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.some((tool) => tool.name === 'start_story'));

  const started = await bash(start, env);
  assert.equal(started.code, 0, started.stderr);
  const runId = (JSON.parse(started.stdout) as { structuredContent: { run_id: string } }).structuredContent.run_id;
  assert.match(runId, /^run_[0-9a-f]{32}$/);

  const waited = await bash(wait.replace('run_id=run_…', `run_id=${runId}`), env);
  assert.equal(waited.code, 0, waited.stderr);
  assert.equal((JSON.parse(waited.stdout) as { structuredContent: { status: string } }).structuredContent.status, 'completed');

  const overStdio = await bash(stdio, env);
  assert.equal(overStdio.code, 0, overStdio.stderr);
  assert.ok((JSON.parse(overStdio.stdout) as { tools: { name: string }[] }).tools.some((tool) => tool.name === 'aceflow_stage'));
});
