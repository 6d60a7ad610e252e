/**
 * `npm start`: the main job. Starts Redis (installing it on a fresh machine), the reference tool
 * services, the orchestrator and WORKERS worker processes, then writes a small batch of stories
 * through the API with a progress bar per run. Stories land in `.data/stories/`.
 *
 *   npm start                                  the built-in sample topics
 *   npm start -- "a topic" "another topic"     your topics
 *   npm start -- --serve                       keep the stack serving afterwards
 *   npm run stack                              serve, without the sample batch
 */
import path from 'node:path';
import { resolveRedis } from '@switchyard/redis';
import { runBatch } from './launcher/batch.js';
import { startStack } from './launcher/stack.js';

const SAMPLE_TOPICS = ['a lighthouse keeper who collects lost letters', 'a robot learning to bake bread for a village', 'two rival cartographers mapping a moving island'];

const args = process.argv.slice(2);
const serve = args.includes('--serve');
const batch = !args.includes('--no-batch');
const topics = args.filter((a) => !a.startsWith('--'));
const say = (line: string) => process.stdout.write(`${line}\n`);
const workers = Number(process.env.WORKERS ?? 2);
if (!Number.isInteger(workers) || workers < 1 || workers > 64) {
  say(`WORKERS must be a whole number from 1 to 64, got "${process.env.WORKERS}"`);
  process.exit(2);
}

const redis = await resolveRedis({ url: process.env.REDIS_URL });
say(`redis        ${redis.url}`);
const stack = await startStack({ redisUrl: redis.url, env: process.env, workers, say }).catch(async (error: unknown) => {
  say(`The stack did not start: ${error instanceof Error ? error.message : String(error)}`);
  await redis.stop();
  process.exit(1);
});

let stopping = false;
async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    await stack.stop();
    await redis.stop();
  }
  process.exit(code);
}
process.once('SIGINT', () => void shutdown(130));
process.once('SIGTERM', () => void shutdown(143));

let failed = 0;
if (batch) {
  const outcome = await runBatch({ apiUrl: stack.apiUrl, apiKey: stack.apiKey, topics: topics.length > 0 ? topics : SAMPLE_TOPICS, say });
  failed = outcome.failed;
  say(`\n${outcome.written.length} ${outcome.written.length === 1 ? 'story' : 'stories'} written:`);
  for (const file of outcome.written) say(`  ${path.relative(process.cwd(), file)}`);
}

if (serve || !batch) {
  say(`\nServing at ${stack.apiUrl}  API key: ${stack.apiKey}\nTry: curl -H "Authorization: Bearer ${stack.apiKey}" ${stack.apiUrl}/health   (Ctrl-C stops)`);
} else {
  await shutdown(failed === 0 ? 0 : 1);
}
