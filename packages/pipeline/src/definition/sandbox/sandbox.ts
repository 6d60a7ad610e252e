/**
 * The expression sandbox: a few child processes that evaluate the JSONata expressions plain
 * JavaScript cannot answer (plain-jsonata.ts). The caller's event loop only sends a request and
 * reads a reply, so a hostile expression costs it nothing while it runs; past its budget the
 * evaluation fails with a SandboxEvaluationError naming the budget, and a process that will not
 * stop (one long step) or that runs out of heap is ended and replaced.
 *
 * Processes, not worker threads: measured here, a worker thread whose heap limit is reached
 * inside one large allocation (a 400 MB `$pad`, JSON of a huge rope) aborts the whole process.
 * The processes start when first needed and end when idle, so a deployment whose expressions
 * are all plain (every shipped pipeline's are) runs none.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { budgetMessage, DEFAULT_EXPRESSION_BUDGET, type BudgetKind, type ExpressionBudget } from './budget.js';
import type { EvaluationReply, EvaluationRequest, ProcessReady } from './protocol.js';

export interface ExpressionSandboxOptions {
  /** Processes evaluating at once; each is started when first needed. Default 2. */
  processes?: number;
  /** How long a process may sit idle before it ends, in ms. Default 60,000. */
  idleMs?: number;
  /** Per-evaluation budget; each field defaults as DEFAULT_EXPRESSION_BUDGET says. */
  budget?: Partial<ExpressionBudget>;
}

/** Why an evaluation failed: past its budget (`budget` says which), or JSONata's own error. */
export class SandboxEvaluationError extends Error {
  override name = 'SandboxEvaluationError';
  constructor(
    message: string,
    readonly budget?: BudgetKind,
  ) {
    super(message);
  }
}

interface Task {
  request: Omit<EvaluationRequest, 'id' | 'budget'>;
  budget: ExpressionBudget;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface Slot {
  child: ChildProcess;
  ready: boolean;
  task?: { id: number; task: Task; timer: NodeJS.Timeout } | undefined;
  idle?: NodeJS.Timeout | undefined;
}

/** Counts since start, for tests and metrics. */
export interface SandboxStats {
  evaluations: number;
  overBudget: number;
  /** Processes ended past a budget or by a crash (not idle ones). */
  processesReplaced: number;
}

function startProcess(memoryMb: number): ChildProcess {
  // From sources (tsx), the child inherits tsx's loader through execArgv; compiled, it is plain JavaScript.
  const entry = new URL(import.meta.url.endsWith('.ts') ? './evaluator-process.ts' : './evaluator-process.js', import.meta.url);
  const execArgv = [...process.execArgv.filter((arg) => !/^--(max-old-space-size|cpu-prof|heap-prof|inspect)/.test(arg)), `--max-old-space-size=${memoryMb}`, '--stack-size=2000'];
  return fork(entry, [], { execArgv, serialization: 'advanced', stdio: ['ignore', 'ignore', 'ignore', 'ipc'], env: {} });
}

/** A process starting or evaluating keeps this one alive; an idle one does not. */
function hold(child: ChildProcess, held: boolean): void {
  if (held) {
    child.ref();
    child.channel?.ref();
  } else {
    child.unref();
    child.channel?.unref();
  }
}

export class ExpressionSandbox {
  readonly budget: ExpressionBudget;
  readonly #processes: number;
  readonly #idleMs: number;
  readonly #slots = new Set<Slot>();
  readonly #queue: Task[] = [];
  #nextId = 1;
  #closed = false;
  readonly stats: SandboxStats = { evaluations: 0, overBudget: 0, processesReplaced: 0 };

  constructor(options: ExpressionSandboxOptions = {}) {
    this.budget = { ...DEFAULT_EXPRESSION_BUDGET, ...options.budget };
    this.#processes = Math.max(1, options.processes ?? 2);
    this.#idleMs = options.idleMs ?? 60_000;
  }

  /**
   * JSONata's value of `source` over `context`, as JSON would keep it.
   * @param timeoutMs a time budget of its own (a step's `expression_timeout`), never above the sandbox's
   */
  evaluate(source: string, context: Record<string, unknown>, timeoutMs?: number): Promise<unknown> {
    if (this.#closed) return Promise.reject(new SandboxEvaluationError('the expression sandbox is closed'));
    const budget = timeoutMs !== undefined && timeoutMs < this.budget.timeoutMs ? { ...this.budget, timeoutMs } : this.budget;
    return new Promise((resolve, reject) => {
      this.#queue.push({ request: { source, context }, budget, resolve, reject });
      this.#dispatch();
    });
  }

  /** Ends every process; evaluations under way or queued fail. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const task of this.#queue.splice(0)) task.reject(new SandboxEvaluationError('the expression sandbox is closed'));
    await Promise.all([...this.#slots].map((slot) => this.#retire(slot, new SandboxEvaluationError('the expression sandbox is closed'), false)));
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const idle = [...this.#slots].find((slot) => slot.ready && !slot.task);
      if (!idle) {
        if (this.#slots.size < this.#processes) this.#spawn();
        return;
      }
      this.#start(idle, this.#queue.shift() as Task);
    }
  }

  #spawn(): void {
    const child = startProcess(this.budget.memoryMb);
    const slot: Slot = { child, ready: false };
    this.#slots.add(slot);
    child.on('message', (message: EvaluationReply | ProcessReady) => this.#onMessage(slot, message));
    child.on('error', (error) => void this.#retire(slot, new SandboxEvaluationError(`the expression sandbox failed: ${error.message}`)));
    child.on('exit', (code, signal) => {
      // Out of heap, V8 aborts the process (SIGABRT, or exit code 134 through a shell).
      const memory = signal === 'SIGABRT' || code === 134;
      void this.#retire(slot, new SandboxEvaluationError(memory ? budgetMessage('memory', this.budget) : `the expression sandbox process stopped (${signal ?? code})`, memory ? 'memory' : undefined));
    });
  }

  #start(slot: Slot, task: Task): void {
    const id = this.#nextId++;
    this.stats.evaluations += 1;
    // JSONata checks its time budget between steps; one step that runs on (a long built-in call)
    // is cut here, by ending the process.
    const grace = Math.max(250, task.budget.timeoutMs);
    const timer = setTimeout(() => void this.#retire(slot, new SandboxEvaluationError(budgetMessage('time', task.budget), 'time')), task.budget.timeoutMs + grace);
    clearTimeout(slot.idle);
    hold(slot.child, true);
    slot.task = { id, task, timer };
    const request: EvaluationRequest = { id, ...task.request, budget: task.budget };
    try {
      slot.child.send(request);
    } catch (error) {
      // A context that cannot be cloned (it came from JSON, so this is a bug worth its message).
      clearTimeout(timer);
      slot.task = undefined;
      task.reject(new SandboxEvaluationError(`the expression's context could not be passed: ${(error as Error).message}`));
    }
  }

  #onMessage(slot: Slot, message: EvaluationReply | ProcessReady): void {
    if ('ready' in message) {
      slot.ready = true;
      this.#dispatch();
      return;
    }
    const current = slot.task;
    if (!current || current.id !== message.id) return;
    clearTimeout(current.timer);
    slot.task = undefined;
    slot.idle = setTimeout(() => void this.#retire(slot, new SandboxEvaluationError('idle'), false), this.#idleMs).unref();
    if (this.#queue.length === 0) hold(slot.child, false);
    if (message.ok) current.task.resolve(message.json === undefined ? undefined : (JSON.parse(message.json) as unknown));
    else {
      if (message.budget) this.stats.overBudget += 1;
      current.task.reject(new SandboxEvaluationError(message.budget ? budgetMessage(message.budget, current.task.budget) : message.message, message.budget));
    }
    this.#dispatch();
  }

  /** Ends a process, failing what it was running with `error`; the next request starts another. */
  async #retire(slot: Slot, error: SandboxEvaluationError, replaced = true): Promise<void> {
    if (!this.#slots.delete(slot)) return;
    clearTimeout(slot.idle);
    const current = slot.task;
    slot.task = undefined;
    if (current) {
      clearTimeout(current.timer);
      if (error.budget) this.stats.overBudget += 1;
      current.task.reject(error);
    }
    if (replaced && !this.#closed) this.stats.processesReplaced += 1;
    // A process that could not even start would fail again: what waits fails now, not in a loop.
    if (!slot.ready) for (const task of this.#queue.splice(0)) task.reject(new SandboxEvaluationError(`the expression sandbox could not start: ${error.message}`));
    if (slot.child.exitCode === null && slot.child.signalCode === null) {
      const exited = new Promise((resolve) => slot.child.once('exit', resolve));
      hold(slot.child, true);
      slot.child.kill('SIGKILL');
      await exited;
    }
    if (!this.#closed) this.#dispatch();
  }
}
