import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { MCP_SERVERS_LIMITS, McpServersJson, mcpServersEnvShape, parseMcpServersEnv } from './config.js';

const issues = (text: string) => {
  const parsed = McpServersJson.safeParse(text);
  assert.equal(parsed.success, false, `expected ${text.slice(0, 80)} to be refused`);
  return JSON.stringify(parsed.error?.issues);
};

test('MCP_SERVERS takes HTTP servers with headers and stdio commands with args, env and cwd', () => {
  const parsed = parseMcpServersEnv({
    MCP_SERVERS: JSON.stringify({
      switchyard: { url: 'http://127.0.0.1:8090/mcp', headers: { authorization: 'Bearer k' } },
      'local-docs': { command: 'node', args: ['server.js'], env: { LOG_LEVEL: 'warn' }, cwd: '/srv/docs' },
    }),
  });
  assert.deepEqual(Object.keys(parsed.servers), ['switchyard', 'local-docs']);
  assert.deepEqual([parsed.callTimeoutMs, parsed.maxResultBytes, parsed.maxTools], [30_000, 1024 * 1024, 500]);
  assert.deepEqual(parseMcpServersEnv({}).servers, {}, 'no servers by default');
});

test('MCP_SERVERS refuses bad names, unknown fields, non-HTTP URLs and header injection', () => {
  assert.match(issues('{"Bad Name":{"url":"http://a/mcp"}}'), /server name/);
  assert.match(issues('{"a":{"url":"file:///etc/passwd"}}'), /url|protocol/i);
  assert.match(issues('{"a":{"url":"http://a/mcp","command":"sh"}}'), /unrecognized|Unrecognized|Invalid/);
  assert.match(issues('{"a":{"url":"http://a/mcp","headers":{"x":"v\\r\\nEvil: 1"}}}'), /CR, LF or NUL/);
  assert.match(issues('{"a":{"url":"http://a/mcp","headers":{"bad header":"v"}}}'), /HTTP token/);
  assert.match(issues('not json'), /JSON object/);
});

test('MCP_SERVERS past its bounds is refused with the bound named, quickly', () => {
  const started = performance.now();
  assert.match(issues(JSON.stringify({ a: { url: 'http://a/mcp', headers: { x: 'v'.repeat(10 * 1024 * 1024) } } })), /at most 65536 bytes/);
  const many = Object.fromEntries(Array.from({ length: MCP_SERVERS_LIMITS.servers + 1 }, (_, i) => [`s${i}`, { url: 'http://a/mcp' }]));
  assert.match(issues(JSON.stringify(many)), /at most 32 servers/);
  assert.match(issues(JSON.stringify({ a: { url: 'http://a/mcp', headers: { x: 'v'.repeat(9 * 1024) } } })), /header value is at most/);
  const headers = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`h${i}`, 'v']));
  assert.match(issues(JSON.stringify({ a: { url: 'http://a/mcp', headers } })), /at most 32 headers/);
  assert.match(issues(JSON.stringify({ a: { command: 'node', args: Array.from({ length: 65 }, () => 'x') } })), /too_big|65|64/);
  // Deeply nested JSON is refused by the size bound or the shape, without a stack overflow.
  assert.match(issues('{"a":' + '['.repeat(20_000) + ']'.repeat(20_000) + '}'), /at most|expected/);
  assert.ok(performance.now() - started < 1000);
});

test('the env shape names the variable when a service spreads it into its own schema', () => {
  const parsed = z.object(mcpServersEnvShape).safeParse({ MCP_SERVERS: '{"x":{}}', MCP_MAX_TOOLS: '0' });
  assert.equal(parsed.success, false);
  const paths = (parsed.error?.issues ?? []).map((issue) => issue.path[0]);
  assert.ok(paths.includes('MCP_SERVERS') && paths.includes('MCP_MAX_TOOLS'), JSON.stringify(paths));
});
