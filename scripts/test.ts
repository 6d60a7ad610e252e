/**
 * `npm test`: typecheck, lint, then every test file (`*.test.ts`, `*.int.test.ts`) under
 * packages/, services/ and scripts/ with node's test runner, against one real Redis for the
 * whole run. Ends with the line `N passed, N failed`.
 *
 *   npm test                      everything
 *   npm test -- tool-client       only test files whose path contains "tool-client" (checks skipped)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT, resolveRedis } from '@switchyard/redis';

const filters = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));

function findTests(dir: string, found: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) findTests(full, found);
    else if (entry.name.endsWith('.test.ts')) found.push(path.relative(REPO_ROOT, full));
  }
  return found;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'], env });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
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

const files = ['packages', 'services', 'scripts']
  .flatMap((dir) => findTests(path.join(REPO_ROOT, dir)))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();

const redis = await resolveRedis({ url: process.env.REDIS_URL, dataDir: path.join(REPO_ROOT, '.data', 'redis-test') });
const tap = path.join(mkdtempSync(path.join(os.tmpdir(), 'switchyard-test-')), 'report.tap');
process.stdout.write(`\n▶ ${files.length} test files, Redis at ${redis.url}\n`);
const testCode = await run(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=4', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${tap}`, ...files],
  { ...process.env, REDIS_URL: redis.url, NODE_ENV: 'test' },
);
await redis.stop();

const report = readFileSync(tap, 'utf8');
const count = (label: string) => Number([...report.matchAll(new RegExp(`^# ${label} (\\d+)$`, 'gm'))].at(-1)?.[1] ?? 0);
passed += count('pass');
failed += count('fail') + count('cancelled');
if (testCode !== 0 && count('fail') + count('cancelled') === 0) failed += 1; // the runner itself failed
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(failed === 0 ? 0 : 1);
