/**
 * Stages as Prometheus sees them: how long their work took and how it ended, how many run now,
 * how many were retried, by pipeline and step. A map branch is counted as its step: its key (an
 * item of the run's data) and the run's id never become a label, so the series stay as few as
 * the definitions' steps; and past the budget of step names (METRICS_MAX_STAGES), a step is
 * counted as stage `other`.
 */
import { Counter, Gauge, Histogram, type MetricLabels, type Registry } from '@switchyard/metrics';
import type { StepJob } from '@switchyard/pipeline';
import { circuitOpenCause } from './stage-budget.js';
import { SKIP_STAGE, type StageWork } from './stage-runner.js';

export interface StageLabels {
  pipeline: string;
  stage: string;
}

/** The labels of a step's job: its pipeline and step (within their budget), whatever branch or run it belongs to. */
export const stageLabels = (job: Pick<StepJob, 'pipeline' | 'step'>, labels: Pick<MetricLabels, 'stage'>): StageLabels => labels.stage(job.pipeline, job.step);

export type StageOutcome = 'completed' | 'skipped' | 'failed' | 'cancelled' | 'deferred';

function failureOutcome(error: unknown, signal: AbortSignal): StageOutcome {
  if (circuitOpenCause(error)) return 'deferred';
  return signal.aborted ? 'cancelled' : 'failed';
}

export class StageMetrics {
  readonly #duration: Histogram<'pipeline' | 'stage' | 'outcome'>;
  readonly #active: Gauge<'pipeline' | 'stage'>;
  readonly #retries: Counter<'pipeline' | 'stage'>;
  readonly #labels: Pick<MetricLabels, 'stage'>;

  constructor(registry: Registry, labels: Pick<MetricLabels, 'stage'>) {
    this.#labels = labels;
    this.#duration = new Histogram({
      name: 'switchyard_stage_duration_seconds',
      help: "Time a stage's work took in this worker (its tool call or step kind), by pipeline, stage (a map's branches as their step) and outcome (completed, skipped, failed, cancelled, deferred: the breaker was open).",
      labelNames: ['pipeline', 'stage', 'outcome'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
      registers: [registry],
    });
    this.#active = new Gauge({ name: 'switchyard_stages_active', help: 'Stages whose work runs in this worker now, by pipeline and stage.', labelNames: ['pipeline', 'stage'], registers: [registry] });
    this.#retries = new Counter({ name: 'switchyard_stage_retries_total', help: 'Stage work started again after a failed attempt or a lost worker, by pipeline and stage.', labelNames: ['pipeline', 'stage'], registers: [registry] });
  }

  /** Runs a stage's work, timing it and counting how it ended. */
  async time<T>(job: Pick<StepJob, 'pipeline' | 'step'>, work: Pick<StageWork, 'attempt' | 'signal'>, run: () => Promise<T>): Promise<T> {
    const labels = stageLabels(job, this.#labels);
    if (work.attempt > 1) this.#retries.inc(labels);
    this.#active.inc(labels);
    const end = this.#duration.startTimer(labels);
    try {
      const output = await run();
      end({ outcome: output === SKIP_STAGE ? 'skipped' : 'completed' });
      return output;
    } catch (error) {
      end({ outcome: failureOutcome(error, work.signal) });
      throw error;
    } finally {
      this.#active.dec(labels);
    }
  }
}
