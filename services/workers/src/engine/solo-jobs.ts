/**
 * Deaths that are a job's own fault, told from deaths that are not. A job whose worker dies is
 * taken over by another (BullMQ counts each such stall in the job, `stalledCounter`). Most deaths
 * have nothing to do with the job: the host killed the process, it ran out of memory running
 * other work, it was deployed over. A *poison* job kills every worker that runs it. The two look
 * the same from one death; they differ in what a job does when it runs with nothing beside it.
 *
 * So a job that has lost its worker SUSPECT_AFTER_STALLS times is a suspect, and a suspect runs
 * alone: its process stops taking jobs, waits for the ones it holds to end, and then runs the
 * suspect with nothing else. A death while it ran alone is blamed on it; after
 * POISON_AFTER_SOLO_DEATHS such deaths the job is poison, and its run (only its run) fails with
 * `poison_job` without running it again. What a suspect's solo runs have met is kept in its data
 * (`solo`: the stall count when its last solo run began, and the deaths blamed on it), so any
 * process judges it the same way.
 *
 * The bound: a job is called poison only after it lost its worker SUSPECT_AFTER_STALLS times and
 * then POISON_AFTER_SOLO_DEATHS more times while it ran alone. Deaths of processes running many
 * jobs never fail a run; a killer that strikes a process at the moments it runs one suspect alone,
 * three times, could (docs/OPERATIONS.md, "Reliability"). BullMQ's own stalled limit stays as a backstop
 * (STALLED_LIMIT_BACKSTOP), above every count here.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Job, Processor, Worker } from 'bullmq';
import { stageOf, StepJob } from '@switchyard/pipeline';
import { handleFailure, StageFailedError, type StageDeps } from '../stage-runner.js';

/** Worker deaths after which a job runs alone. */
export const SUSPECT_AFTER_STALLS = 2;
/** Deaths while it ran alone after which a job is poison. */
export const POISON_AFTER_SOLO_DEATHS = 3;
/** BullMQ's maxStalledCount: above SUSPECT_AFTER_STALLS + POISON_AFTER_SOLO_DEATHS, so that this judges first. */
export const STALLED_LIMIT_BACKSTOP = 50;

/** What a suspect's solo runs met, in its data. */
export interface SoloRecord {
  /** The job's stall count when its last solo run began. */
  stalls: number;
  /** Deaths while it ran alone. */
  deaths: number;
}

/** What the lane found of a job: how often it lost its worker, and how often while alone. */
export interface Deaths {
  stalls: number;
  soloDeaths: number;
}

/** The deaths blamed on a suspect: those of its earlier solo runs, and one more when it stalled since its last began. */
export function soloDeathsOf(stalls: number, solo: SoloRecord | undefined): number {
  if (!solo) return 0;
  return stalls > solo.stalls ? solo.deaths + 1 : solo.deaths;
}

function soloRecordOf(data: unknown): SoloRecord | undefined {
  const solo = (data as { solo?: unknown } | null)?.solo as Partial<SoloRecord> | undefined;
  return typeof solo?.stalls === 'number' && typeof solo.deaths === 'number' ? { stalls: solo.stalls, deaths: solo.deaths } : undefined;
}

export interface SoloOptions {
  /**
   * Called for a job found poison, before it would run: ends its run and throws (the job fails);
   * returning lets it run (e.g. its stage had completed before its deaths).
   */
  poisoned?: (job: Job, deaths: Deaths) => Promise<void>;
}

/** The jobs one worker process runs, counted, and its suspects run one at a time with nothing beside them. */
export class SoloLane {
  #active = 0;
  #workers: readonly Worker[] = [];
  #turn: Promise<unknown> = Promise.resolve();

  /** The process's workers, paused while a suspect waits for the others to end and runs. */
  attach(workers: readonly Worker[]): void {
    this.#workers = workers;
  }

  /** `processor` with suspects run alone and poison judged. */
  wrap(processor: Processor, options: SoloOptions = {}): Processor {
    return async (job, token, signal) => {
      const stalls = job.stalledCounter ?? 0;
      if (stalls < SUSPECT_AFTER_STALLS) return this.#counted(() => processor(job, token, signal));
      const solo = soloRecordOf(job.data);
      const soloDeaths = soloDeathsOf(stalls, solo);
      if (soloDeaths >= POISON_AFTER_SOLO_DEATHS && options.poisoned) await options.poisoned(job, { stalls, soloDeaths });
      return this.#alone(async () => {
        // Written before it runs, so that a death now is blamed on this solo run.
        if (solo?.stalls !== stalls) await job.updateData({ ...(job.data as object), solo: { stalls, deaths: soloDeaths } satisfies SoloRecord });
        return processor(job, token, signal);
      });
    };
  }

  async #counted<T>(run: () => Promise<T>): Promise<T> {
    this.#active += 1;
    try {
      return await run();
    } finally {
      this.#active -= 1;
    }
  }

  #alone<T>(run: () => Promise<T>): Promise<T> {
    const turn = this.#turn.then(async () => {
      await Promise.all(this.#workers.map((worker) => worker.pause(true)));
      try {
        while (this.#active > 0) await sleep(20);
        return await this.#counted(run);
      } finally {
        for (const worker of this.#workers) if (worker.closing === undefined) worker.resume();
      }
    });
    this.#turn = turn.catch(() => undefined);
    return turn;
  }
}

/**
 * The verdict on a step job found poison: its run fails with `poison_job` (its fallback, if any,
 * does not run: it would be the next victim's neighbour), unless its stage had completed before
 * the deaths, when it runs (and finds its output stored). Other runs are untouched.
 */
export function failPoisonStep(deps: StageDeps): NonNullable<SoloOptions['poisoned']> {
  return async (job, deaths) => {
    const parsed = StepJob.safeParse(job.data);
    if (!parsed.success) return;
    const { run_id: runId, step, branch } = parsed.data;
    const stage = stageOf(step, branch?.key);
    const status = await deps.store.redis.hget(deps.store.keys.run(runId), `${stage}.status`);
    if (status === 'completed' || status === 'skipped') return;
    const error = new StageFailedError({
      code: 'poison_job',
      message: `The ${stage} job killed its worker ${deaths.soloDeaths} times while it ran alone (${deaths.stalls} worker deaths in all): it is not run again`,
      details: { worker_deaths: deaths.stalls, deaths_alone: deaths.soloDeaths },
    });
    throw await handleFailure(deps, job, { runId, name: stage, error, final: true });
  };
}
