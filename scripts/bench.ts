/**
 * `npm run bench`: benchmarks, not timed tests. Prints one JSON document on stdout (progress on
 * stderr): throughput against a plain-BullMQ baseline measured in the same run, stage-hop latency,
 * accepting a 10,000-item batch, and module search. Every measurement uses a key prefix of its
 * own, deleted afterwards.
 */
import os from 'node:os';
import { benchModuleSearch } from '@switchyard/module-docs';
import { createRedisClient, resolveRedis, uniquePrefix } from '@switchyard/redis';
import { measureAccept, measureHops, measureThroughput } from './bench/measures.js';

const note = (line: string) => process.stderr.write(`${line}\n`);
const redis = await resolveRedis({ url: process.env.REDIS_URL });
const prefixes: string[] = [];

note('throughput: switchyard and the plain BullMQ baseline…');
const throughput = await measureThroughput({ redisUrl: redis.url, stories: 300, concurrency: 8, prefixes });
note('stage hops…');
const hops = await measureHops({ redisUrl: redis.url, stories: 40, prefixes });
note('accepting a 10,000-item batch…');
const accept = await measureAccept({ redisUrl: redis.url, items: 10_000, prefixes });
note('module search…');
const client = createRedisClient(redis.url);
const searchPrefix = uniquePrefix('bench-modules');
prefixes.push(searchPrefix);
const moduleSearch = await benchModuleSearch({ redis: client, prefix: searchPrefix, modules: 5000 });

for (const prefix of prefixes) {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await client.unlink(...keys);
  } while (cursor !== '0');
}
await client.quit();
await redis.stop();

const report = {
  machine: { cpus: os.cpus().length, node: process.version, platform: `${os.platform()} ${os.arch()}` },
  throughput: { ...throughput, target_ratio: 0.8, met: throughput.ratio >= 0.8 },
  stage_hop_latency: { ...hops, target_p50_ms: 2, met: hops.hops_ms.p50 <= 2 },
  batch_accept: { ...accept, target_seconds: 2, met: accept.seconds <= 2 },
  module_search: { ...moduleSearch, target_ms: 50, met: moduleSearch.p99_ms < 50 },
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
process.exit(0);
