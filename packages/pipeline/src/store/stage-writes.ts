/**
 * Stage starts and completions, gathered over one turn of the event loop and sent as a single
 * script call. Under load a worker process starts and finishes many stages per turn (replies for
 * several jobs arrive in one read), and a script call costs far more than the work inside it, on
 * both sides of the connection; on an idle system a list of one costs what a lone call did.
 */
import { callGroups } from './call-groups.js';
import type { ScriptCall } from './stage-scripts.js';
import { STAGE_NAME } from './stage-records.js';
import { TurnBatch } from './turn-batch.js';

/** A run's end, written with its last stage's completion (see the script's `finish`). */
export interface RunEndArgs {
  to: string;
  /** The statuses the run may move from, comma-separated. */
  from: string;
  error: string;
  result: string;
  retentionSeconds: string;
  /** The stage's output to keep, or '' when the result holds it. */
  keep: string;
  /** The result's title for listings, or ''. */
  title: string;
}

export interface StageOperation {
  kind: 'start' | 'complete' | 'skip' | 'finish';
  /** run, outputs, events, and the run's items for a start that reads its item and for a finish (see the script). */
  keys: readonly string[];
  stage: string;
  /** Start: the stages whose outputs to return. */
  inputs?: readonly string[];
  /** Start: an id of its own, so that the same start sent twice counts once. */
  id?: string;
  /** Start: 'r' to return the run's request too, 'p' to peek without starting. */
  flags?: string;
  /** Start: the field of the branch's item in the run's items hash (its fourth key), to return too. */
  item?: string;
  /**
   * Start, completion: when the stage began (ISO time), for a first attempt whose start is written
   * after it began, or not at all (see runStage's carried inputs); default: now.
   */
  startedAt?: string;
  /** Completion: the output as JSON. */
  output?: string;
  /** Completion, skip: fields of the run to answer once recorded. */
  watch?: readonly string[];
  /** Finish: how the run ends. */
  end?: RunEndArgs;
}

export interface SubmittedOperation {
  /** Settles once the operation has been handed to the connection, ahead of any command issued after. */
  sent: Promise<void>;
  /** Settles with the operation's reply from Redis. */
  reply: Promise<unknown>;
}

interface Queued {
  op: StageOperation;
  markSent(): void;
  resolve(reply: unknown): void;
  reject(error: Error): void;
}

export interface StageWritesOptions {
  call: ScriptCall;
  /** Stream length cap passed to the script's XADDs. */
  maxlen: string;
  /** Operations per script call at most (default 200), so that one call never holds Redis long. */
  maxPerCall?: number;
  now?: () => string;
  /**
   * On a Redis Cluster a script touches one slot: the turn's operations are sent as one call per
   * run slot (a run's own operations stay in order). Default false: one call for all.
   */
  cluster?: boolean;
}

export class StageWrites {
  readonly #options: Required<StageWritesOptions>;
  readonly #turn = new TurnBatch<Queued>((queued) => {
    for (const batch of callGroups(queued, { ...this.#options, keyOf: (item) => item.op.keys[0] ?? '' })) this.#send(batch);
  });

  constructor(options: StageWritesOptions) {
    this.#options = { maxPerCall: 200, now: () => new Date().toISOString(), cluster: false, ...options };
  }

  submit(op: StageOperation): SubmittedOperation {
    if (!STAGE_NAME.test(op.stage)) throw new Error(`stage name ${JSON.stringify(op.stage)} is not plain enough to be written into an event`);
    if (op.kind === 'finish' && !op.end) throw new Error(`stage finish of ${op.stage} without the run's end`);
    let markSent!: () => void;
    const sent = new Promise<void>((resolve) => (markSent = resolve));
    const reply = new Promise<unknown>((resolve, reject) => this.#turn.push({ op, markSent, resolve, reject }));
    return { sent, reply };
  }

  #send(batch: Queued[]): void {
    const keys: string[] = [];
    const args: string[] = [this.#options.now(), this.#options.maxlen];
    for (const { op } of batch) {
      keys.push(...op.keys);
      args.push(op.kind, op.stage, String(op.keys.length));
      if (op.kind === 'start') args.push(op.id ?? '', op.flags ?? '', op.item ?? '', op.startedAt ?? '', String(op.inputs?.length ?? 0), ...(op.inputs ?? []));
      else if (op.kind === 'finish') args.push(...finishArgs(op));
      else args.push(...(op.kind === 'complete' ? [op.output ?? 'null', op.startedAt ?? ''] : []), String(op.watch?.length ?? 0), ...(op.watch ?? []));
    }
    let pending: Promise<unknown>;
    try {
      // ioredis writes the command (or queues it, in order, while reconnecting) before returning.
      pending = this.#options.call(keys.length, ...keys, ...args);
    } catch (error) {
      pending = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    for (const queued of batch) queued.markSent();
    pending.then(
      (replies) => batch.forEach((queued, i) => settle(queued, Array.isArray(replies) ? replies[i] : undefined)),
      (error: unknown) => batch.forEach((queued) => queued.reject(error instanceof Error ? error : new Error(String(error)))),
    );
  }
}

function finishArgs(op: StageOperation): string[] {
  const end = op.end as RunEndArgs;
  return [end.to, end.from, end.error, end.result, end.retentionSeconds, end.keep, end.title];
}

function settle(queued: Queued, reply: unknown): void {
  if (reply === undefined) queued.reject(new Error(`stage ${queued.op.kind} of ${queued.op.stage}: no reply`));
  else if (Array.isArray(reply) && reply[0] === 'error') queued.reject(new Error(`stage ${queued.op.kind} of ${queued.op.stage} failed in Redis: ${String(reply[1])}`));
  else queued.resolve(reply);
}
