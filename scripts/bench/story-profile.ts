/**
 * Where a zero-latency story's cost goes, in Switchyard or in plain BullMQ (story-profiling.ts):
 * prints one JSON document. Redis: REDIS_URL, else a local server of its own in
 * `.data/redis-profile`, stopped at the end.
 *
 *   npx tsx scripts/bench/story-profile.ts switchyard|baseline [stories, default 1000] [file.cpuprofile]
 */
import { REPO_ROOT, resolveRedis } from '@switchyard/redis';
import { profileStories } from './story-profiling.js';

const [systemArg = 'switchyard', storiesArg = '1000', fileArg] = process.argv.slice(2);
const stories = Number(storiesArg);
if ((systemArg !== 'switchyard' && systemArg !== 'baseline') || !Number.isInteger(stories) || stories < 1) {
  process.stderr.write('usage: npx tsx scripts/bench/story-profile.ts switchyard|baseline [stories] [file.cpuprofile]\n');
  process.exit(2);
}
const redis = await resolveRedis({ url: process.env.REDIS_URL, dataDir: `${REPO_ROOT}.data/redis-profile` });
try {
  const file = fileArg ?? `${REPO_ROOT}.data/story-${systemArg}.cpuprofile`;
  const report = await profileStories({ redisUrl: redis.url, system: systemArg, stories, file });
  process.stdout.write(`${JSON.stringify({ ...report, profile: file }, null, 1)}\n`);
} finally {
  await redis.stop();
}
