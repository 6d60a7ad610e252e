/**
 * The switchyard command run as a user runs it (the bin file in a process of its own) against a
 * whole Switchyard on loopback: applying the documented pipeline, running it with --follow,
 * --json for scripts, runs and batches, and each failure as one line with its exit code.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startTestStack, TEST_API_KEY, type TestStack } from '@switchyard/orchestrator/testing';
import { main } from './main.js';
import { cliEnv, runCli, type CliResult } from './testing.js';

let stack: TestStack;
let env: NodeJS.ProcessEnv;
const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-cli-'));
const file = (name: string, text: string) => {
  const at = path.join(dir, name);
  writeFileSync(at, text);
  return at;
};
const cli = (...args: string[]) => runCli(args, { env });
const json = <T>(result: CliResult): T => {
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as T;
};
/** The command failed with `code` and said why in exactly one line. */
function oneLine(result: CliResult, code: number, pattern: RegExp): void {
  assert.equal(result.code, code, `exit code; stderr: ${result.stderr}`);
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line: ${result.stderr}`);
  assert.match(lines[0] ?? '', /^switchyard: /);
  assert.match(lines[0] ?? '', pattern);
}

before(async () => {
  stack = await startTestStack({ label: 'cli' });
  env = cliEnv({ SWITCHYARD_URL: stack.api.url, SWITCHYARD_KEY: TEST_API_KEY });
});
after(() => stack.close());

test('pipelines apply -f docs/pipelines/section-review.yaml registers it; applied again it is unchanged', async () => {
  const first = await cli('pipelines', 'apply', '-f', 'docs/pipelines/section-review.yaml');
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout, 'section-review: version 1 (created)\n');
  const again = await cli('pipelines', 'apply', '-f', 'docs/pipelines/section-review.yaml');
  assert.equal(again.stdout, 'section-review: version 1 (unchanged)\n');
  const listed = await cli('pipelines', 'ls');
  assert.match(listed.stdout, /^NAME +LATEST +REGISTERED +DESCRIPTION$/m);
  assert.match(listed.stdout, /^section-review +1 /m);
  const shown = await cli('pipelines', 'show', 'section-review');
  assert.match(shown.stdout, /^name: section-review$/m);
  assert.match(shown.stdout, /tool: generate_structured_outline/);
});

test('run section-review --set topic="a tide clock" --follow exits 0 and prints the run\'s text, progress on stderr', async () => {
  const result = await cli('run', 'section-review', '--set', 'topic=a tide clock', '--follow');
  assert.equal(result.code, 0, result.stderr);
  const runId = /^(run_[0-9a-f]{32}): section-review version 1$/m.exec(result.stderr)?.[1];
  assert.ok(runId, result.stderr);
  assert.match(result.stderr, /100% completed/);
  const run = (await stack.json<{ status: string; request: unknown; result: { title: string; summary: string; sections: { name: string; reviewed: string }[] } }>(`/v1/runs/${runId}`)).body;
  assert.equal(run.status, 'completed');
  assert.deepEqual(run.request, { topic: 'a tide clock' });
  assert.ok(result.stdout.startsWith(`# ${run.result.title}\n`), result.stdout.slice(0, 200));
  assert.ok(result.stdout.includes(run.result.summary.trim()), 'the summary is printed');
  for (const section of run.result.sections) {
    assert.ok(result.stdout.includes(`### ${section.name}`), `section ${section.name} is named`);
    assert.ok(result.stdout.includes(section.reviewed.trim()), `section ${section.name}'s text is printed`);
  }
});

test('--json output parses, for scripts: pipelines, a followed run, runs and their events', async () => {
  const pipelines = json<{ pipelines: { name: string }[] }>(await cli('pipelines', 'ls', '--json'));
  assert.ok(pipelines.pipelines.some((p) => p.name === 'section-review'));
  const started = json<{ run_id: string; pipeline: { name: string } }>(await cli('run', 'section-review', '--input', '{"topic":"a lock keeper"}', '--json'));
  assert.equal(started.pipeline.name, 'section-review');
  const followed = json<{ run_id: string; status: string; result: { title: string } }>(await cli('runs', 'follow', started.run_id, '--json', '--quiet'));
  assert.deepEqual([followed.run_id, followed.status], [started.run_id, 'completed']);
  const shown = json<{ run_id: string; stages: unknown[] }>(await cli('runs', 'show', started.run_id, '--json'));
  assert.ok(shown.stages.length >= 3);
  const listed = json<{ runs: { run_id: string }[] }>(await cli('runs', 'ls', '--pipeline', 'section-review', '--limit', '50', '--json'));
  assert.ok(listed.runs.some((r) => r.run_id === started.run_id));
  const events = await cli('runs', 'events', started.run_id, '--json');
  assert.equal(events.code, 0, events.stderr);
  const lines = events.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { id: string; event: string; data: { status?: string } });
  assert.deepEqual([lines.at(-1)?.event, lines.at(-1)?.data.status], ['done', 'completed']);
  const after = await cli('runs', 'events', started.run_id, '--json', '--after', lines.at(-2)?.id ?? '');
  assert.deepEqual(after.stdout.trimEnd().split('\n').map((line) => (JSON.parse(line) as { id: string }).id), [lines.at(-1)?.id], '--after resumes after that event');
});

test('--priority sets the class of a run and of a batch, runs show prints its flow line, and a class out of 1–9 is refused', async () => {
  const started = json<{ run_id: string }>(await cli('run', 'section-review', '--set', 'topic=a mill', '--priority', '1', '--json'));
  const shown = await cli('runs', 'show', started.run_id);
  assert.match(shown.stdout, /^flow +priority 1; key key:\S+/m);
  const items = file('urgent.json', JSON.stringify([{ topic: 'a weir' }]));
  const batch = json<{ run_ids: string[] }>(await cli('batches', 'create', '-f', items, '--pipeline', 'section-review', '--priority', '2', '--json'));
  const run = json<{ flow: { priority: number } }>(await cli('runs', 'show', batch.run_ids[0] ?? '', '--json'));
  assert.equal(run.flow.priority, 2);
  const refused = await cli('run', 'section-review', '--set', 'topic=x', '--priority', '10');
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /--priority takes a class from 1 \(first\) to 9 \(last\), got "10"/);
});

test('a batch is created from a file of items and followed to its end; batches ls, show and events read it', async () => {
  const items = file('items.json', JSON.stringify([{ topic: 'a mill' }, { topic: 'a ferry' }]));
  const created = json<{ batch_id: string; runs: { status: string }[] }>(await cli('batches', 'create', '-f', items, '--pipeline', 'section-review', '--follow', '--json'));
  assert.deepEqual(created.runs.map((r) => r.status), ['completed', 'completed']);
  const listed = json<{ batches: { batch_id: string; pipeline: string }[] }>(await cli('batches', 'ls', '--json'));
  assert.ok(listed.batches.some((b) => b.batch_id === created.batch_id && b.pipeline === 'section-review'));
  const shown = await cli('batches', 'show', created.batch_id);
  assert.match(shown.stdout, /status +done: 2 completed of 2/);
  const events = await cli('batches', 'events', created.batch_id);
  assert.equal(events.code, 0, events.stderr);
  assert.equal(events.stdout.trimEnd().split('\n').filter((line) => /^\S+ +run /.test(line)).length, 2);
  assert.match(events.stdout.trimEnd().split('\n').at(-1) ?? '', /^\S+ +done +\{"counts":/);
  const lines = file('items.jsonl', '{"topic":"a bell"}\n\n{"topic":"a kite"}\n');
  const plain = await cli('batches', 'create', '-f', lines, '--pipeline', 'section-review');
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /^batch_\S+\n$/);
});

test('a batch larger than the bars shown is followed as one bar from its own events, and ends with its counts', async () => {
  const one = file('one.yaml', "name: cli-one\nsteps:\n  outline:\n    tool: generate_structured_outline\n    args:\n      topic: input.topic\n");
  assert.equal((await cli('pipelines', 'apply', '-f', one)).code, 0);
  const items = file('many.jsonl', Array.from({ length: 25 }, (_, i) => JSON.stringify({ topic: `harbour ${i}` })).join('\n'));
  const followed = await cli('batches', 'create', '-f', items, '--pipeline', 'cli-one', '--follow');
  assert.equal(followed.code, 0, followed.stderr);
  assert.match(followed.stdout, /^batch_\S+: 25 completed\n$/);
  assert.match(followed.stderr, /batch batch_\S+$/m);
  assert.ok(followed.stderr.trimEnd().split('\n').length < 30, 'one bar, not a line per run');
  assert.match(followed.stderr, /100% done +25\/25 ended/);
});

test('a failed run exits 1 and says why in its last line; a cancelled one exits 1 too', async (t) => {
  const failing = file('fails.yaml', "name: cli-fails\nsteps:\n  outline:\n    tool: generate_structured_outline\n    args:\n      topic: input.topic\n");
  assert.equal((await cli('pipelines', 'apply', '-f', failing)).code, 0);
  stack.tools.services.outline.faults.failNext = 100;
  stack.tools.services.outline.faults.failureStatus = 500;
  t.after(() => (stack.tools.services.outline.faults.failNext = 0));
  const failed = await cli('run', 'cli-fails', '--set', 'topic=a drowned bell', '--follow');
  assert.equal(failed.code, 1, failed.stderr);
  assert.equal(failed.stdout, '');
  assert.match(failed.stderr.trimEnd().split('\n').at(-1) ?? '', /^run_\S+ failed at outline: /);
  stack.tools.services.outline.faults.failNext = 0;

  stack.tools.services.writing.faults.chunkDelayMs = 200;
  t.after(() => (stack.tools.services.writing.faults.chunkDelayMs = 0));
  const started = await cli('run', 'story', '--set', 'topic=a slow lantern');
  const runId = started.stdout.trim();
  assert.match(runId, /^run_[0-9a-f]{32}$/);
  const cancelled = await cli('runs', 'cancel', runId);
  assert.equal(cancelled.stdout, `${runId} cancelled\n`);
  const followed = await cli('runs', 'follow', runId);
  assert.equal(followed.code, 1);
  assert.match(followed.stderr, new RegExp(`${runId} cancelled`));
});

test('a bad file gives one clear line and exit 2, before anything is sent', async () => {
  oneLine(await cli('pipelines', 'apply', '-f', path.join(dir, 'missing.yaml')), 2, /missing\.yaml: no such file$/);
  oneLine(await cli('pipelines', 'apply', '-f', file('bad.yaml', 'name: x\nsteps: [a\n')), 2, /bad\.yaml: not valid YAML \(.*line 3/);
  oneLine(await cli('run', 'section-review', '-i', file('bad.json', '{"topic": ')), 2, /bad\.json: not valid JSON/);
  oneLine(await cli('run', 'section-review', '-i', file('list.json', '[1]')), 2, /list\.json: the input must be an object/);
  oneLine(await cli('run', 'section-review', '--input', '{"a":1}', '-i', file('in.json', '{}')), 2, /do not go together/);
  oneLine(await cli('run', 'section-review', '--set', 'no-equals'), 2, /--set no-equals: expected key=value/);
  oneLine(await cli('batches', 'create', '-f', file('none.json', '{"things":[]}')), 2, /none\.json: expected a list of items/);
  oneLine(await cli('pipelines', 'apply', '-f', file('anon.yaml', 'steps: {}\n')), 2, /no `name` in the definition/);
});

test('hostile input files are refused by their size, kind and depth, quickly and without reading them whole', async () => {
  const huge = path.join(dir, 'huge.json');
  writeFileSync(huge, '');
  // A sparse 2 GiB file: as large as it claims, nothing on disk.
  const { truncateSync } = await import('node:fs');
  truncateSync(huge, 2 * 1024 ** 3);
  let started = Date.now();
  oneLine(await cli('run', 'section-review', '-i', huge), 2, /huge\.json: 2147483648 bytes, over the limit of 33554432 \(SWITCHYARD_MAX_FILE_BYTES\)/);
  assert.ok(Date.now() - started < 10_000, `refused in ${Date.now() - started} ms`);
  oneLine(await cli('batches', 'create', '-f', '/dev/zero'), 2, /\/dev\/zero: not a regular file/);
  const deep = file('deep.json', `${'['.repeat(200_000)}${']'.repeat(200_000)}`);
  started = Date.now();
  oneLine(await cli('batches', 'create', '-f', deep), 2, /deep\.json: (nested deeper than 64 levels|not valid JSON)/);
  const deepYaml = file('deep.yaml', `${'['.repeat(50_000)}${']'.repeat(50_000)}`);
  oneLine(await cli('pipelines', 'apply', '-f', deepYaml), 2, /deep\.yaml: (nested deeper than 64 levels|not valid YAML)/);
  oneLine(await cli('run', 'section-review', '--set', `topic=${'['.repeat(100)}${']'.repeat(100)}`), 2, /--set topic: nested deeper than 64 levels/);
  assert.ok(Date.now() - started < 20_000, `deep files refused in ${Date.now() - started} ms`);
  oneLine(await runCli(['runs', 'ls'], { env: { ...env, SWITCHYARD_MAX_FILE_BYTES: 'lots' } }), 2, /invalid environment variable SWITCHYARD_MAX_FILE_BYTES/);
});

test("the API's refusals, a wrong key, an unknown run and an unreachable API are one line each with their exit codes", async () => {
  oneLine(await cli('pipelines', 'apply', '-f', file('unknown-tool.yaml', 'name: cli-broken\nsteps:\n  a:\n    tool: no_such_tool\n')), 3, /PUT \/v1\/pipelines\/cli-broken: 400 invalid_pipeline: /);
  oneLine(await cli('run', 'section-review', '--set', 'audience=x'), 3, /400 .*topic/);
  oneLine(await cli('runs', 'show', 'run_00000000000000000000000000000000'), 3, /GET \/v1\/runs\/run_0+: 404 run_not_found: /);
  oneLine(await cli('runs', 'events', 'run_00000000000000000000000000000000'), 3, /events: .*run_0+/);
  oneLine(await runCli(['runs', 'ls'], { env: { ...env, SWITCHYARD_KEY: 'not-the-key' } }), 3, /401 \S+: .*\(the key from SWITCHYARD_KEY was refused\)$/);
  oneLine(await runCli(['runs', 'ls'], { env: cliEnv({ SWITCHYARD_URL: stack.api.url }) }), 3, /401/);
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  oneLine(await cli('--url', `http://127.0.0.1:${port}`, 'pipelines', 'ls'), 4, new RegExp(`cannot reach the API: GET /v1/pipelines: http://127.0.0.1:${port} connection refused`));
  oneLine(await cli('runs', 'lss'), 2, /unknown command 'lss'.*see switchyard runs --help/);
  oneLine(await cli('runs', 'ls', '--limit', 'many'), 2, /--limit takes a whole number above 0/);
});

test('pipelines delete deletes where the API has the route, and otherwise says the API refused it', async () => {
  assert.equal((await cli('pipelines', 'apply', '-f', file('gone.yaml', 'name: cli-gone\nsteps:\n  a:\n    tool: generate_structured_outline\n    args:\n      topic: "\'x\'"\n'))).code, 0);
  const document = (await (await fetch(`${stack.api.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const deleted = await cli('pipelines', 'delete', 'cli-gone');
  if (document.paths['/v1/pipelines/{name}']?.delete) {
    assert.equal(deleted.code, 0, deleted.stderr);
    oneLine(await cli('pipelines', 'show', 'cli-gone'), 3, /404/);
  } else oneLine(deleted, 3, /DELETE \/v1\/pipelines\/cli-gone: 405 /);
});

test('--help answers for every command, from the checkout and from another directory, and through npx', async () => {
  // Every command's help in-process (the same program the bin runs), the bin itself below.
  for (const args of [['pipelines'], ['pipelines', 'apply'], ['pipelines', 'ls'], ['pipelines', 'show'], ['pipelines', 'delete'], ['run'], ['runs'], ['runs', 'ls'], ['runs', 'show'], ['runs', 'cancel'], ['runs', 'events'], ['runs', 'follow'], ['batches'], ['batches', 'create'], ['batches', 'ls'], ['batches', 'show'], ['batches', 'events']]) {
    let out = '';
    const code = await main([...args, '--help'], { env: { SWITCHYARD_URL: stack.api.url }, streams: { out: { write: (text: string) => (out += text) }, err: { write: () => true } } });
    assert.equal(code, 0, args.join(' '));
    assert.match(out, new RegExp(`^Usage: switchyard ${args.join(' ')}[ |]`), args.join(' '));
  }
  const elsewhere = await runCli(['--help'], { env, cwd: os.tmpdir() });
  assert.equal(elsewhere.code, 0, elsewhere.stderr);
  assert.match(elsewhere.stdout, /^Usage: switchyard /);
  const npx = await runCli(['switchyard', '--help'], { env, command: ['npx', '--no-install'], timeoutMs: 60_000 });
  assert.equal(npx.code, 0, npx.stderr);
  assert.match(npx.stdout, /^Usage: switchyard /);
  assert.match(npx.stdout, /SWITCHYARD_URL/);
});
