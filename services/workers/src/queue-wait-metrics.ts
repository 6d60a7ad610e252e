/**
 * How long step jobs waited before their work began, by queue, priority class and fair-share key:
 * what flow control decides. A job's wait runs from when it was added to when it passed its
 * concurrency keys and began, so time spent behind a key counts as waiting. Keys are bounded
 * labels (METRICS series budget `maxFairKeys`, the rest `other`); a run's id never is one.
 */
import { Histogram, type MetricLabels, type Registry } from '@switchyard/metrics';
import { UNTAGGED_FLOW, type StepJob } from '@switchyard/pipeline';

export class QueueWaitMetrics {
  readonly #wait: Histogram<'queue' | 'priority' | 'key'>;
  readonly #labels: Pick<MetricLabels, 'fairKey'>;

  constructor(registry: Registry, labels: Pick<MetricLabels, 'fairKey'>) {
    this.#labels = labels;
    this.#wait = new Histogram({
      name: 'switchyard_queue_wait_seconds',
      help: "Time a step job waited from being added to its work beginning (behind its queue's other work and its concurrency keys), by queue, priority class (1 first, 9 last) and fair-share key (bounded: later keys are `other`).",
      labelNames: ['queue', 'priority', 'key'],
      buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200],
      registers: [registry],
    });
  }

  /** Observes a job beginning its work now; a job that begins again (a retry, a wait that woke) was observed the first time. */
  began(job: { queueName: string; timestamp: number; attemptsMade: number; data: Partial<StepJob> }): void {
    const { data } = job;
    if (job.attemptsMade > 0 || data.resumed || data.child_wait_since !== undefined || data.breaker_wait_since !== undefined) return;
    const flow = data.flow ?? UNTAGGED_FLOW;
    this.#wait.observe({ queue: job.queueName, priority: String(flow.priority), key: this.#labels.fairKey(flow.key) }, Math.max(0, Date.now() - job.timestamp) / 1000);
  }
}
