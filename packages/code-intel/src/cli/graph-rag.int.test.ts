import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { GraphRagAnswer } from '../graph-rag.js';
import { assertValidAnswer, FIXTURE_ROOT, scratchDir } from '../test-kit.js';

const BIN = fileURLToPath(new URL('../../bin/graph-rag.mjs', import.meta.url));
const MOCK = fileURLToPath(new URL('../../bin/ckb-mock-server.mjs', import.meta.url));

let data: Awaited<ReturnType<typeof scratchDir>>;
before(async () => {
  data = await scratchDir();
});
after(() => data.remove());

function graphRag(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(CKB_|CODE_INTEL_)/.test(name)));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: FIXTURE_ROOT, env: { ...base, CODE_INTEL_DATA_DIR: data.dir, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('bad arguments exit with code 2 and a message naming the argument', async () => {
  const cases: [string[], string][] = [
    [['--query', '', '--format', 'json'], 'query must not be empty'],
    [['--format', 'json'], 'query is required'],
    [['--query', 'x', '--fusion-depth', '6'], 'fusion_depth must be an integer from 0 to 5'],
    [['--query', 'x', '--budget', '0'], 'budget must be an integer from 1 to 200000'],
    [['--query', 'x', '--top-k', 'many'], 'top_k must be an integer from 1 to 50'],
    [['--query', 'x', '--format', 'yaml'], '--format must be json or text'],
    [['--query', 'x', '--colour', 'red'], "Unknown option '--colour'"],
  ];
  const results = await Promise.all(cases.map(([args]) => graphRag(args)));
  results.forEach(({ code, stdout, stderr }, i) => {
    const [args, message] = cases[i] as [string[], string];
    assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
    assert.equal(stdout, '');
    assert.ok(stderr.startsWith(`graph-rag: ${message}`), stderr);
    assert.match(stderr, /usage: graph-rag --query/);
  });
});

test('the JSON answer is seed 001\'s shape, with the options as given', async () => {
  // The shape is under test, not the seed's 5 s: a loaded machine may take longer for the bundled server's first answer.
  const { code, stdout } = await graphRag(['--query', 'retry with backoff', '--format', 'json', '--top-k', '3', '--fusion-depth', '2', '--budget', '5000'], { CKB_TIMEOUT_MS: '30000' });
  assert.equal(code, 0);
  const answer = JSON.parse(stdout) as GraphRagAnswer;
  assertValidAnswer(answer);
  assert.equal(answer.candidates.length, 3);
  assert.equal(answer.candidates[0]?.file, 'src/lib/retry.ts');
  assert.equal(answer.metadata.fusion_depth, 2);
  assert.equal(answer.metadata.ckb_available, true, 'with no CKB configured, the bundled server answers');
  assert.equal(answer.metadata.ckb_fallback_reason, undefined);
});

test('CKB_INTEGRATION_ENABLED=false gives disabled without starting CKB', async () => {
  const { code, stdout } = await graphRag(['--query', 'retry with backoff', '--format', 'json'], { CKB_INTEGRATION_ENABLED: 'false' });
  assert.equal(code, 0);
  assert.deepEqual([(JSON.parse(stdout) as GraphRagAnswer).metadata.ckb_available, (JSON.parse(stdout) as GraphRagAnswer).metadata.ckb_fallback_reason], [false, 'disabled']);
});

test('the text format lists the candidates and says where the graph came from', async () => {
  const { code, stdout } = await graphRag(['--query', 'token bucket', '--top-k', '2'], { CKB_TIMEOUT_MS: '30000' });
  assert.equal(code, 0);
  assert.match(stdout, /^1\. src\/middleware\/rate-limit\.ts {2}\(relevance 1\)/);
  assert.match(stdout, /2 of \d+ candidates, fusion depth 1, CKB graph, \d+ ms/);
});

test('a CKB slower than 5 s gives SC-MCP-002\'s answer: connection_timeout, its message, the local graph', async () => {
  const { code, stdout, stderr } = await graphRag(['--query', 'test', '--format', 'json'], { CKB_MCP_COMMAND: `${process.execPath} ${MOCK}`, CKB_MOCK_DELAY_MS: '6000' });
  assert.equal(code, 0, stderr);
  const answer = JSON.parse(stdout) as GraphRagAnswer;
  assertValidAnswer(answer);
  assert.equal(answer.metadata.ckb_available, false);
  assert.equal(answer.metadata.ckb_fallback_reason, 'connection_timeout');
  assert.equal(answer.metadata.ckb_last_error, 'Connection timeout after 5000ms');
  assert.equal(answer.metadata.fallback_mode, 'local_graph');
  assert.equal(answer.metadata.fusion_depth, 1);
  assert.ok(answer.candidates.length > 0);
});

test('a config file can switch CKB off (ckb_integration.enabled = false)', async () => {
  const config = path.join(data.dir, 'config.json');
  await writeFile(config, JSON.stringify({ ckb_integration: { enabled: false, command: 'ckb-mock-server' } }));
  const { code, stdout } = await graphRag(['--query', 'test', '--format', 'json', '--config', config]);
  assert.equal(code, 0);
  assert.equal((JSON.parse(stdout) as GraphRagAnswer).metadata.ckb_fallback_reason, 'disabled');
  await writeFile(config, JSON.stringify({ ckb_integration: { enabled: 'yes' } }));
  const bad = await graphRag(['--query', 'test', '--config', config]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /ckb_integration\.enabled/);
});
