/**
 * `npm test`: typecheck, lint, then every test file (`*.test.ts`, `*.int.test.ts`) under
 * packages/, services/, scripts/ and tests/ with node's test runner, against one real Redis for the
 * whole run. Ends with the line `N passed, N failed`.
 *
 *   npm test                      everything
 *   npm test -- tool-client       only test files whose path contains "tool-client" (checks skipped)
 *   npm test -- x --test-name-pattern="compose"   and of those, only the tests whose names match
 *   SWITCHYARD_TEST_REDIS=cluster npm test [-- filter]
 *                                 the same against a local 3-master Redis Cluster it starts
 *                                 (REDIS_URL, when set, wins: `redis-cluster://host:port,…` for a cluster of yours)
 *   SWITCHYARD_TEST_REDIS=container npm test [-- filter]
 *                                 Redis from a container (testcontainers; `container-cluster`: three
 *                                 cluster masters), for a machine with Docker and no redis-server
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, resolveRedis, testRedisMode } from '@switchyard/redis';

const filters = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
// `--test-name-pattern=…` goes on to node's runner: only the tests whose names match run.
const namePatterns = process.argv.slice(2).filter((arg) => arg.startsWith('--test-name-pattern='));

function findTests(dir: string, found: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) findTests(full, found);
    else if (entry.name.endsWith('.test.ts')) found.push(path.relative(REPO_ROOT, full));
  }
  return found;
}

/** Runs a command with its output shown; `onOutput`, when given, also reads its stdout. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env, onOutput?: (chunk: string) => void): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, stdio: ['ignore', onOutput ? 'pipe' : 'inherit', 'inherit'], env });
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      process.stdout.write(chunk);
      onOutput?.(chunk);
    });
    // 'close' comes after the output has been read to its end.
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const bin = (name: string) => path.join(REPO_ROOT, 'node_modules', '.bin', name);
let passed = 0;
let failed = 0;

async function check(name: string, command: string, args: string[]): Promise<void> {
  process.stdout.write(`\n▶ ${name}\n`);
  const code = await run(command, args);
  if (code === 0) passed += 1;
  else failed += 1;
  process.stdout.write(`${code === 0 ? '✔' : '✖'} ${name}\n`);
}

if (filters.length === 0) {
  await check('typecheck', bin('tsc'), ['--noEmit', '-p', '.']);
  await check('lint', bin('eslint'), ['--max-warnings', '0', '.']);
}

const files = ['packages', 'services', 'scripts', 'tests']
  .flatMap((dir) => findTests(path.join(REPO_ROOT, dir)))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();

const redis = await resolveRedis({ url: process.env.REDIS_URL, dataDir: path.join(REPO_ROOT, '.data', 'redis-test'), ...testRedisMode() });
process.stdout.write(`\n▶ ${files.length} test files, Redis at ${redis.url}\n`);
// --test-force-exit: a file whose tests have all ended exits even when a handle it leaked would
// keep it alive, so no file can hold CI until its time runs out. The runner's closing counts are
// read from its spec output, which is written before it exits (a reporter's file may not be).
// The closing counts are taken line by line as they pass: the failures listed after them can be
// longer than any tail kept.
const counts = new Map<string, number>();
let partial = '';
const testCode = await run(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=4', '--test-force-exit', '--test-reporter=spec', '--test-reporter-destination=stdout', ...namePatterns, ...files],
  { ...process.env, REDIS_URL: redis.url, NODE_ENV: 'test' },
  (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const summary = /^ℹ (pass|fail|cancelled) (\d+)$/.exec(line);
      if (summary) counts.set(summary[1] as string, Number(summary[2]));
    }
  },
);
await redis.stop();

const count = (label: string) => counts.get(label) ?? 0;
passed += count('pass');
failed += count('fail') + count('cancelled');
if (testCode !== 0 && count('fail') + count('cancelled') === 0) failed += 1; // the runner itself failed
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(failed === 0 ? 0 : 1);
