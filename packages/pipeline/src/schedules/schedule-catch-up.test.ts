import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ticksToRun } from './schedule-tick.js';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);
const every = (catch_up: 'none' | 'latest' | 'all', catch_up_max: number | null = null) => ({ cron: null, timezone: null, every_ms: HOUR, catch_up, catch_up_max });

test('a tick taken on time runs itself, whatever the policy', () => {
  for (const policy of ['none', 'latest', 'all'] as const) assert.deepEqual(ticksToRun(every(policy), T0, T0 + 50), [T0]);
});

test('after an outage of 5½ hours, none runs nothing, latest the latest tick due, all each one due up to its bound', () => {
  const now = T0 + 5.5 * HOUR;
  assert.deepEqual(ticksToRun(every('none'), T0, now), []);
  assert.deepEqual(ticksToRun(every('latest'), T0, now), [T0 + 5 * HOUR]);
  assert.deepEqual(ticksToRun(every('all', 10), T0, now), [0, 1, 2, 3, 4, 5].map((h) => T0 + h * HOUR));
  assert.deepEqual(ticksToRun(every('all', 3), T0, now), [3, 4, 5].map((h) => T0 + h * HOUR), 'the latest ones');
});

test('a cron schedule catches up on the times its pattern gave, in its time zone, and a year of minutely ticks costs only the ticks it keeps', () => {
  const daily = { cron: '0 9 * * *', timezone: 'Europe/Paris', every_ms: null, catch_up: 'all' as const, catch_up_max: 10 };
  const first = Date.UTC(2026, 0, 1, 8); // 09:00 in Paris
  const ticks = ticksToRun(daily, first, first + 2.5 * 24 * HOUR);
  assert.deepEqual(ticks.map((ms) => new Date(ms).toISOString()), ['2026-01-01T08:00:00.000Z', '2026-01-02T08:00:00.000Z', '2026-01-03T08:00:00.000Z']);
  const started = performance.now();
  const minutely = ticksToRun({ ...daily, cron: '* * * * *', timezone: null, catch_up_max: 5 }, T0, T0 + 365 * 24 * HOUR);
  assert.equal(minutely.length, 5);
  assert.ok(performance.now() - started < 200, `${performance.now() - started} ms`);
});
