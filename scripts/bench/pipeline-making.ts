/**
 * What sending two commands costs on a connection BullMQ shares (a Queue and a FlowProducer
 * define their scripts on it, as the orchestrator's and the workers' connections have them): as
 * an ioredis pipeline, whose making copies every script defined on the connection, against the
 * same two commands sent one after the other (one round trip either way). KeyedPipeline and the
 * hand-written guarantees of story-guarantees.ts send a few commands the second way.
 */
import { FlowProducer, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { createRedisClient } from '@switchyard/redis';
import { deletePrefix, median, round } from './story-stats.js';

const CALLS = 3000;

async function cpuPerCall(send: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 300; i += 1) await send(i);
  const before = process.cpuUsage();
  for (let i = 0; i < CALLS; i += 1) await send(i);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / CALLS;
}

export async function benchPipelineMaking(options: { redisUrl: string; prefix: string; rounds: number }) {
  const connection: Redis = createRedisClient(options.redisUrl);
  const queue = new Queue('pipeline-making', { connection, prefix: options.prefix });
  const flows = new FlowProducer({ connection, prefix: options.prefix });
  await Promise.all([queue.waitUntilReady(), flows.waitUntilReady()]);
  const key = (i: number) => `${options.prefix}:h:${i % 100}`;
  const piped: number[] = [];
  const direct: number[] = [];
  try {
    for (let r = 0; r < options.rounds; r += 1) {
      piped.push(await cpuPerCall((i) => connection.pipeline().hset(key(i), 'f', '1').expire(key(i), 60).exec()));
      direct.push(await cpuPerCall((i) => Promise.all([connection.hset(key(i), 'f', '1'), connection.expire(key(i), 60)])));
    }
  } finally {
    await queue.close();
    await flows.close();
    await deletePrefix(connection, options.prefix);
    await connection.quit();
  }
  return {
    measured_as: `CPU of this process per call of two commands (HSET, EXPIRE), ${CALLS} calls one at a time, medians of ${options.rounds} rounds, on a connection holding ${Object.keys((connection as unknown as { scriptsSet: object }).scriptsSet).length} scripts (BullMQ's)`,
    pipeline_cpu_us: round(median(piped), 1),
    sent_together_cpu_us: round(median(direct), 1),
  };
}
