/**
 * Seed 001's contract tests CT-MCP-001 … CT-MCP-004, run as the seed writes them: each command
 * line below is the seed's, character for character, run by bash. `graph-rag.sh` is this
 * package's bin (node_modules/.bin, put on PATH), the workspace is the sample repository, and CKB
 * is, with no configuration at all, the bundled CKB-compatible server started over stdio, which
 * honours the seed's CKB_UNAVAILABLE and CKB_MOCK_DELAY_MS. When shared/seeds sits beside the
 * repository (as in CI), the commands and the JSON Schema are checked against the seed's text.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { MCP_OUTPUT_METADATA_SCHEMA } from '../metadata.js';
import { FIXTURE_ROOT, scratchDir } from '../test-kit.js';

const CONTRACT_TESTS: Record<string, string> = {
  'CT-MCP-001': `graph-rag.sh --query "test" --format json | jq -e '.metadata | has("ckb_available")'`,
  'CT-MCP-002': `# 模拟 CKB 不可用
CKB_UNAVAILABLE=1 graph-rag.sh --query "test" --format json | \\
  jq -e '.metadata.ckb_available == false and .metadata.ckb_fallback_reason != null'`,
  'CT-MCP-003': `graph-rag.sh --query "test" --format json | \\
  jq -e '.metadata.fusion_depth >= 0 and .metadata.fusion_depth <= 5'`,
  'CT-MCP-004': `# 模拟网络延迟 > 5s
CKB_MOCK_DELAY_MS=6000 graph-rag.sh --query "test" --format json | \\
  jq -e '.metadata.ckb_available == false and .metadata.ckb_fallback_reason == "connection_timeout"'`,
};

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const BIN = path.join(REPO_ROOT, 'node_modules', '.bin');

let data: Awaited<ReturnType<typeof scratchDir>>;
before(async () => {
  data = await scratchDir();
});
after(() => data.remove());

/**
 * The environment of a plain checkout: ours without any CKB or code-intel settings (the bundled
 * CKB server is the default), with the package's bin on PATH; the index goes to a scratch folder.
 */
function contractEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(CKB_|CODE_INTEL_)/.test(name)));
  return { ...inherited, PATH: `${BIN}${path.delimiter}${process.env.PATH ?? ''}`, CODE_INTEL_DATA_DIR: data.dir, ...extra };
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: FIXTURE_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('jq is installed, as the contract commands need it', async () => {
  const { code } = await run('jq', ['--version'], contractEnv());
  assert.equal(code, 0, 'install jq (apt-get install jq)');
});

test('the contract commands and the metadata schema here are the seed\'s own', (t) => {
  const seeds = path.join(REPO_ROOT, '..', 'shared', 'seeds');
  const file = existsSync(seeds) ? readdirSync(seeds).find((name) => name.startsWith('001_')) : undefined;
  if (!file) {
    t.skip('shared/seeds/001_* is not beside this repository');
    return;
  }
  const seed = readFileSync(path.join(seeds, file), 'utf8');
  for (const [id, command] of Object.entries(CONTRACT_TESTS)) {
    const section = seed.slice(seed.indexOf(`### ${id}`));
    const block = /```bash\n([\s\S]*?)\n```/.exec(section)?.[1];
    assert.equal(block, command, `${id} as written in the seed`);
  }
  const schema = /### 3\.1[\s\S]*?```json\n([\s\S]*?)\n```/.exec(seed)?.[1];
  assert.deepEqual(JSON.parse(schema ?? 'null'), MCP_OUTPUT_METADATA_SCHEMA);
});

for (const [id, command] of Object.entries(CONTRACT_TESTS)) {
  test(`${id} passes as written: ${command.split('\n').at(-1)?.trim()}`, async () => {
    const { code, stdout, stderr } = await run('bash', ['-c', command], contractEnv());
    assert.equal(code, 0, `${id} failed (exit ${code})\nstdout: ${stdout}\nstderr: ${stderr}`);
    assert.equal(stdout.trim(), 'true');
  });
}
