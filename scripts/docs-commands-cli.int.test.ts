/**
 * docs/CLI.md's commands for what runs wait for and for schedules (`inbox`, `approve`, `signal`,
 * `schedules …`), run as written against `npm run stack` started as a user starts it, with
 * `switchyard` on the PATH as `npm link` puts it there (a link to bin/switchyard.mjs). The block is
 * a synopsis: a `[…]` is run once with what it holds and once without; RUN_ID and CALL_ID stand for
 * a run that waits and its call (a fresh one for each answer), as the inbox lists them. The files a
 * user writes (nightly.yaml, a pipeline with a wait step) are written first, in the directory the
 * commands run in.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { REPO_ROOT, uniquePrefix } from '@switchyard/redis';
import { commandsOf, docBlocks } from './docs-blocks.js';
import { launchStack, type LaunchedStack } from './launcher/testing/launch-stack.js';

let stack: LaunchedStack | undefined;
let home: string;

before(() => {
  home = mkdtempSync(path.join(os.tmpdir(), 'docs-cli-'));
  // What `npm link` makes: `switchyard` on the PATH, a link to the checkout's bin file.
  symlinkSync(path.join(REPO_ROOT, 'bin', 'switchyard.mjs'), path.join(home, 'switchyard'));
  writeFileSync(path.join(home, 'nightly.yaml'), 'name: cli-nightly\npipeline: review-gate\ncron: "30 2 * * *"\ntimezone: Europe/Paris\ncatch_up: none\n');
  writeFileSync(path.join(home, 'review-gate.yaml'), 'name: review-gate\nsteps:\n  review:\n    wait:\n      signal: review\n      schema: { type: object, required: [verdict], properties: { verdict: { enum: [accept, reject] } } }\noutput: steps.review\n');
});
after(async () => {
  await stack?.stop();
  rmSync(home, { recursive: true, force: true });
});

function sh(command: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The synopsis line as commands: every `[…]` taken, then none of them (one command when it has none). */
function variantsOf(line: string): string[] {
  const all = line.replace(/\[([^\]]*)\]/g, '$1').replace(/\s+/g, ' ').trim();
  const none = line.replace(/\s*\[[^\]]*\]/g, '').replace(/\s+/g, ' ').trim();
  return all === none ? [all] : [all, none];
}

test("docs/CLI.md's inbox, approve, signal and schedules commands work as written against npm run stack, with switchyard on the PATH", async () => {
  const block = docBlocks().find((b) => b.where.startsWith('docs/CLI.md:') && b.text.includes('switchyard inbox'));
  assert.ok(block, 'docs/CLI.md gives the inbox commands');
  assert.match(block.note ?? '', /scripts\/docs-commands-cli\.int\.test\.ts/, 'the block says this test runs it');
  stack = await launchStack({ QUEUE_PREFIX: uniquePrefix('docs-cli') });
  const live = stack;
  const env = { ...process.env, PATH: `${home}:${process.env.PATH ?? ''}`, SWITCHYARD_URL: live.apiUrl, SWITCHYARD_KEY: live.apiKey };
  const api = async <T>(route: string, init: RequestInit = {}) => (await (await fetch(`${live.apiUrl}${route}`, { ...init, headers: { authorization: `Bearer ${live.apiKey}`, 'content-type': 'application/json' } })).json()) as T;
  const run = async (command: string) => {
    const result = await sh(command, env);
    assert.equal(result.code, 0, `\`${command}\` exited ${result.code}: ${result.stderr.slice(-1500)}`);
    return result;
  };
  // What a user has done before: the pipelines registered.
  await run('switchyard pipelines apply -f ' + path.join(REPO_ROOT, 'docs/pipelines/guarded-research.yaml'));
  await run('switchyard pipelines apply -f review-gate.yaml');
  /** A run of `pipeline` that waits, and what it waits for, as the inbox lists it. */
  const waiting = async (pipeline: string, input: Record<string, unknown>) => {
    const { run_id: runId } = await api<{ run_id: string }>(`/v1/pipelines/${pipeline}/runs`, { method: 'POST', body: JSON.stringify(input) });
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
      const [item] = (await api<{ items: { key: string }[] }>(`/v1/inbox?run_id=${runId}`)).items;
      if (item) return { runId, key: item.key };
    }
    throw new Error(`run ${runId} of ${pipeline} never waited`);
  };

  const ran: string[] = [];
  for (const line of commandsOf(block.text)) {
    for (const variant of variantsOf(line)) {
      let command = variant;
      let answered: { runId: string; key: string } | undefined;
      if (/^switchyard (inbox|approve) /.test(command) && /RUN_ID/.test(command)) answered = await waiting('guarded-research', { topic: 'tea' });
      if (/^switchyard signal /.test(command)) answered = await waiting('review-gate', {});
      if (answered) command = command.replaceAll('RUN_ID', answered.runId).replaceAll('CALL_ID', answered.key);
      const { stdout } = await run(command);
      ran.push(command);
      if (/^switchyard inbox .*--json/.test(command)) {
        const [item] = (JSON.parse(stdout) as { items: { run_id: string; arguments?: unknown }[] }).items;
        assert.equal(item?.run_id, answered?.runId, 'inbox --run lists that run');
        assert.equal(typeof item?.arguments, 'object', 'with the call\'s arguments as an object');
      }
      if (/^switchyard (approve|signal) /.test(command) && answered) {
        // The answer is recorded at once; the item leaves the inbox when the run's job takes it.
        let left = -1;
        for (const deadline = Date.now() + 30_000; left !== 0 && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
          left = (await api<{ items: unknown[] }>(`/v1/inbox?run_id=${answered.runId}`)).items.length;
        }
        assert.equal(left, 0, `\`${command}\` answered what the run waited for`);
      }
    }
  }
  process.stdout.write(`# ${ran.length} commands of docs/CLI.md run as written:\n${ran.map((c) => `#   ${c}`).join('\n')}\n`);
  for (const verb of ['inbox', 'approve', 'signal', 'schedules apply', 'schedules ls', 'schedules show', 'schedules pause', 'schedules delete']) {
    assert.ok(ran.some((c) => c.startsWith(`switchyard ${verb}`)), `switchyard ${verb} was run`);
  }
  const gone = await sh('switchyard schedules show cli-nightly', env);
  assert.equal(gone.code, 3, 'the deleted schedule is gone');
});
