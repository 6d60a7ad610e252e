import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Children, startService } from './processes.js';

test('a restartable child that dies on its own is started again, each time after a longer wait, until the launch stops', async () => {
  const children = new Children();
  const notices: { code: number | null; delayMs: number }[] = [];
  let starts = 0;
  children.addRestartable({
    baseDelayMs: 20,
    start: (restarted) => {
      starts += 1;
      return startService({ name: 'restart-test', entry: 'scripts/launcher/fixtures/exits-soon.ts', tier: 1, env: {}, appendLog: restarted });
    },
    onRestart: ({ code, delayMs }) => notices.push({ code, delayMs }),
  });
  const deadline = Date.now() + 30_000;
  while (starts < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await children.stopAll();
  process.stdout.write(`# restarts: ${JSON.stringify(notices)}\n`);
  assert.ok(starts >= 4, `started ${starts} times`);
  assert.deepEqual(notices.slice(0, 3).map((n) => n.code), [7, 7, 7]);
  assert.deepEqual(notices.slice(0, 3).map((n) => n.delayMs), [20, 40, 80], 'the wait doubles while it keeps dying');
  const log = readFileSync(children.all[0]?.logFile ?? '', 'utf8');
  assert.ok(log.split('started').length - 1 >= 3, 'each restart appends to the same log');
});
