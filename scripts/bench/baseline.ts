/**
 * The baseline: plain BullMQ, hand-written, with the same seven-job shape as a story run
 * (outline←search, then polish←four writers added by the outline job) and trivial processors.
 * What Switchyard adds on top of this is what the ratio measures.
 */
import { FlowProducer, Worker, type Job } from 'bullmq';
import { createRedisClient } from '@switchyard/redis';

const SECTIONS = ['introduction', 'development', 'climax', 'conclusion'];

export async function runBaseline(options: { redisUrl: string; prefix: string; stories: number; concurrency: number }): Promise<{ seconds: number }> {
  const connection = createRedisClient(options.redisUrl);
  const flows = new FlowProducer({ connection, prefix: options.prefix });
  let done = 0;
  let finish: () => void = () => undefined;
  const allDone = new Promise<void>((resolve) => (finish = resolve));
  const opts = { connection, prefix: options.prefix, concurrency: options.concurrency };
  const workers = [
    new Worker('b-search', async () => ({ results: [] }), opts),
    new Worker(
      'b-outline',
      async (job: Job<{ id: number }>) => {
        await flows.add({
          name: 'polish',
          queueName: 'b-polish',
          data: job.data,
          opts: { jobId: `${job.data.id}.polish` },
          children: SECTIONS.map((s) => ({ name: 'write', queueName: 'b-write', data: { ...job.data, s }, opts: { jobId: `${job.data.id}.${s}`, failParentOnFailure: true } })),
        });
        return { title: 't' };
      },
      opts,
    ),
    new Worker('b-write', async () => ({ content: 'x' }), opts),
    new Worker(
      'b-polish',
      async () => {
        done += 1;
        if (done === options.stories) finish();
        return { polished: true };
      },
      opts,
    ),
  ];
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  const started = performance.now();
  await flows.addBulk(
    Array.from({ length: options.stories }, (_, id) => ({
      name: 'outline',
      queueName: 'b-outline',
      data: { id },
      opts: { jobId: `${id}.outline` },
      children: [{ name: 'search', queueName: 'b-search', data: { id }, opts: { jobId: `${id}.search`, failParentOnFailure: true } }],
    })),
  );
  await allDone;
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(workers.map((w) => w.close()));
  await flows.close();
  await connection.quit();
  return { seconds };
}
