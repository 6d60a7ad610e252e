/**
 * The docs' commands, run as written. Every shell block of README.md and docs/*.md is either run
 * here, command by command, against `npm run stack` (started as a user starts it), or marked just
 * above it with `<!-- docs-test: covered by FILE … -->` (FILE must exist) or
 * `<!-- docs-test: illustrative (why) -->`. Only the stack's address, its key and the ids a
 * command printed before stand in for what the docs write as `…` or `8080`.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { freePort, REPO_ROOT, uniquePrefix } from '@switchyard/redis';
import { commandsOf, docBlocks } from './docs-blocks.js';
import { launchStack, type LaunchedStack } from './launcher/testing/launch-stack.js';
import { ComposeStack, freePortRange, waitFor as waitForCondition } from '../tests/system/testing/compose-stack.js';

let stack: LaunchedStack | undefined;
let curlHome: string;
const prefix = uniquePrefix('docs-commands');

before(() => {
  curlHome = mkdtempSync(path.join(os.tmpdir(), 'docs-curl-'));
  // What each curl answered, written after its body: the docs' commands stay as written.
  writeFileSync(path.join(curlHome, '.curlrc'), 'write-out = "\\nHTTP %{http_code}\\n"\n');
});
after(async () => {
  await stack?.stop();
  rmSync(curlHome, { recursive: true, force: true });
});

function bash(command: string, env: NodeJS.ProcessEnv, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

test('every shell block of the docs is run here or says which test covers it, or that it is illustrative', () => {
  const blocks = docBlocks();
  assert.ok(blocks.length >= 8, `found ${blocks.length}`);
  for (const block of blocks.filter((b) => b.note)) {
    const note = block.note as string;
    assert.match(note, /^(covered by |illustrative \()/, `${block.where}: ${note}`);
    for (const file of note.match(/[\w./-]+\.(ts|md)|\.ci\/run/g) ?? []) assert.ok(existsSync(path.join(REPO_ROOT, file)), `${block.where} names ${file}, which does not exist`);
  }
  process.stdout.write(`# ${blocks.length} blocks: ${blocks.filter((b) => !b.note).length} run here, ${blocks.filter((b) => b.note?.startsWith('covered')).length} covered elsewhere, ${blocks.filter((b) => b.note?.startsWith('illustrative')).length} illustrative\n`);
});

test("the docs' commands work as written against npm run stack: each exits 0 and no HTTP answer is a 5xx or a 404", async () => {
  // Started here, not before every test: a run of the compose test alone (--test-name-pattern) needs none.
  stack ??= await launchStack({ QUEUE_PREFIX: prefix });
  const live = stack;
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'docs-run-'));
  const env = { ...process.env, CURL_HOME: curlHome, SWITCHYARD_URL: live.apiUrl, SWITCHYARD_KEY: live.apiKey };
  const failures: string[] = [];
  let ran = 0;
  // A page is read top to bottom in one shell: what one block sets (KEY, API, a run id) the next uses.
  let page = '';
  let assignments = '';
  let runId = '';
  let batchId = '';
  for (const block of docBlocks().filter((b) => !b.note)) {
    if (!block.where.startsWith(`${page}:`)) [page, assignments, runId, batchId] = [block.where.split(':')[0] ?? '', '', '', ''];
    for (const written of commandsOf(block.text)) {
      const command = written
        .replaceAll('http://127.0.0.1:8080', live.apiUrl)
        .replace(/\bKEY=(…|\$\(cat \.data\/api-key\))/, `KEY=${live.apiKey}`)
        .replaceAll('run_…', runId || 'run_…')
        .replaceAll('batch_…', batchId || 'batch_…');
      if (/^\w+=\S*(;\s*\w+=\S*)*;?$/.test(command)) {
        assignments += `${command}; `;
        continue;
      }
      // A command that writes a file of its own (openapi-typescript's -o) writes it in a scratch directory.
      const cwd = / -o \S+/.test(command) ? scratch : REPO_ROOT;
      const { code, output } = await bash(`${assignments}${command}`, env, cwd);
      ran += 1;
      const statuses = [...output.matchAll(/^HTTP (\d{3})$/gm)].map((m) => Number(m[1]));
      if (code !== 0 || statuses.some((s) => s >= 500 || s === 404)) failures.push(`${block.where}: \`${written}\` → exit ${code}, HTTP ${statuses.join(',')}: ${output.slice(-400)}`);
      runId = [...output.matchAll(/run_[0-9a-f]{32}/g)].at(-1)?.[0] ?? runId;
      batchId = [...output.matchAll(/batch_[0-9a-f]{32}/g)].at(-1)?.[0] ?? batchId;
    }
  }
  rmSync(scratch, { recursive: true, force: true });
  process.stdout.write(`# ${ran} documented commands run against npm run stack\n`);
  assert.deepEqual(failures, []);
  assert.ok(ran >= 20, `ran ${ran}`);
});

test('npm start, as the README gives it, writes the sample stories and exits 0', async () => {
  // On a port of its own: another launch in this test run may be taking 8080 at the same moment.
  const { code, output } = await bash('npm start', { ...process.env, PORT: String(await freePort()), QUEUE_PREFIX: uniquePrefix('docs-npm-start') }, REPO_ROOT);
  assert.equal(code, 0, output.slice(-2000));
  assert.match(output, /3 of 3 stories written/);
});

test('npm start -- --agent, as the README gives it, runs the research agent on the offline model and writes its findings', async () => {
  const { code, output } = await bash('npm start -- --agent "the history of tea"', { ...process.env, PORT: String(await freePort()), QUEUE_PREFIX: uniquePrefix('docs-npm-start-agent') }, REPO_ROOT);
  assert.equal(code, 0, output.slice(-2000));
  assert.match(output, /turn 1: asked for 2 tool calls/);
  assert.match(output, /turn 2: answered/);
  assert.match(output, /written to \.data\/research\/the-history-of-tea\.json, with the transcript/);
});

const composeSkip = process.env.SWITCHYARD_TEST_COMPOSE === '1' ? false : 'needs a Docker engine: .ci/run sets SWITCHYARD_TEST_COMPOSE=1 when infra/docker-engine.sh has one';

test('docker compose up --build, as the README gives it, brings the whole stack up healthy, and Ctrl-C stops it', { skip: composeSkip, timeout: 30 * 60_000 }, async () => {
  const block = docBlocks().find((b) => b.where.startsWith('README.md:') && b.text.includes('docker compose up'));
  const command = commandsOf(block?.text ?? '')[0];
  assert.equal(command, 'docker compose up --build', 'the README gives the command');
  // Its project, keys and ports from the environment, as a user's .env would give them: the command stays as written.
  const compose = new ComposeStack({ apiPort: await freePort(), mcpPort: await freePort(), toolPort: await freePortRange(5), env: { LOG_LEVEL: 'warn' } });
  const child = spawn('bash', ['-c', command], { cwd: REPO_ROOT, env: compose.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-4000)));
  child.stderr.on('data', (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  try {
    const ready = async (url: string) => (await fetch(url).catch(() => undefined))?.status ?? 0;
    await waitForCondition('the API and the bridge ready', () => Promise.all([ready(`${compose.apiUrl}/readyz`), ready(compose.mcpUrl.replace(/\/mcp$/, '/readyz'))]), (codes) => codes.every((c) => c === 200), 25 * 60_000, 1_000);
    const story = await compose.api<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a lighthouse keeper who collects lost letters' }) });
    assert.equal(story.status, 202);
    const run = await waitForCondition('the story', async () => (await compose.api<{ status: string }>(`/v1/runs/${story.body.run_id}`)).body, (r) => r.status === 'completed' || r.status === 'failed', 180_000, 1_000);
    assert.equal(run.status, 'completed');
    // Ctrl-C, as a user stops it: compose stops the containers and exits.
    process.kill(-(child.pid as number), 'SIGINT');
    const code = await exited;
    assert.ok(code === 0 || code === 130, `docker compose up exited ${code}: ${output.slice(-1000)}`);
    assert.equal((await compose.docker(['ps', '-q', '--filter', `label=com.docker.compose.project=${compose.project}`])).trim(), '', 'no container runs after Ctrl-C');
  } finally {
    if (child.exitCode === null) process.kill(-(child.pid as number), 'SIGKILL');
    await compose.compose(['down', '-v', '--remove-orphans']).catch(() => undefined);
  }
});
