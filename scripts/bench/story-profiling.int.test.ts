/**
 * The zero-latency story profile at a tiny size, on a Redis of its own (it sets Redis' slow log):
 * Switchyard's record scripts show up beside BullMQ's, and plain BullMQ's batch runs BullMQ's alone.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createRedisClient, resolveRedis, type RedisHandle } from '@switchyard/redis';
import { profileStories } from './story-profiling.js';

let redis: RedisHandle;
let dir: string;
before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'story-profile-'));
  redis = await resolveRedis({ url: undefined, dataDir: path.join(dir, 'redis') });
});
after(async () => {
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
});

const names = (report: Awaited<ReturnType<typeof profileStories>>) => report.redis.by_name.map((entry) => entry.name);

test("Switchyard's profile shows its stage records beside BullMQ's scripts, and puts the slow log back", async () => {
  const file = path.join(dir, 'switchyard.cpuprofile');
  const report = await profileStories({ redisUrl: redis.url, system: 'switchyard', stories: 20, file });
  assert.ok(existsSync(file));
  assert.ok(names(report).includes('script syStageWrites'), names(report).join(', '));
  assert.ok(names(report).some((name) => name.startsWith('script moveToFinished')));
  assert.ok(report.node_cpu_us_per_story > 0 && report.node.busy_us_per_story > 0 && report.node.by_area.length > 0);
  const client = createRedisClient(redis.url);
  assert.deepEqual(await client.config('GET', 'slowlog-log-slower-than'), ['slowlog-log-slower-than', '10000']);
  await client.quit();
});

test("plain BullMQ's profile has BullMQ's scripts and none of Switchyard's", async () => {
  const report = await profileStories({ redisUrl: redis.url, system: 'baseline', stories: 20, file: path.join(dir, 'baseline.cpuprofile') });
  assert.ok(names(report).some((name) => name.startsWith('script moveToFinished')));
  assert.ok(!names(report).some((name) => name.startsWith('script sy')), names(report).join(', '));
});
