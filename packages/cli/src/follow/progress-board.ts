/**
 * The progress bars of runs, one line per run (and the text arriving, under its bar, when there
 * is some). On a terminal the lines are redrawn in place (at most every `intervalMs`); otherwise a
 * run's line is printed each time its status, stage or percentage changes, so a log shows every
 * step without a line per streamed chunk.
 */
import { progressLine, type RunLine } from './progress-line.js';

export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export class ProgressBoard {
  readonly #out: Output;
  readonly #runs: RunLine[];
  readonly #printed: string[];
  readonly #intervalMs: number;
  #drawn = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(out: Output, runs: RunLine[], options: { intervalMs?: number } = {}) {
    this.#out = out;
    this.#runs = runs.map((r) => ({ ...r }));
    this.#printed = runs.map(() => '');
    this.#intervalMs = options.intervalMs ?? 100;
    if (out.isTTY) this.#draw();
    else this.#runs.forEach((_, i) => this.#printIfChanged(i));
  }

  update(index: number, run: RunLine): void {
    if (index < 0 || index >= this.#runs.length) return;
    this.#runs[index] = { ...run };
    if (!this.#out.isTTY) return this.#printIfChanged(index);
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#draw();
    }, this.#intervalMs);
  }

  /** A line above the bars (a warning, a note), without breaking them. */
  note(line: string): void {
    if (!this.#out.isTTY) return void this.#out.write(`${line}\n`);
    this.#clear();
    this.#out.write(`${line}\n`);
    this.#drawn = 0;
    this.#draw();
  }

  /** Draws the final state; the board writes nothing afterwards. */
  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#out.isTTY) this.#draw();
    else this.#runs.forEach((_, i) => this.#printIfChanged(i));
  }

  #fit(line: string): string {
    const width = this.#out.columns ?? 0;
    return width > 1 && line.length > width - 1 ? `${line.slice(0, width - 2)}…` : line;
  }

  #clear(): void {
    if (this.#drawn > 0) this.#out.write(`\x1b[${this.#drawn}A\x1b[0J`);
  }

  #draw(): void {
    const lines = this.#runs.flatMap((r) => [this.#fit(progressLine(r)), ...(r.detail ? [this.#fit(`  ${r.detail}`)] : [])]);
    // Clearing below as well: a detail line that went away leaves nothing behind.
    this.#out.write(`${this.#drawn > 0 ? `\x1b[${this.#drawn}A` : ''}${lines.map((l) => `\x1b[2K${l}\n`).join('')}\x1b[0J`);
    this.#drawn = lines.length;
  }

  #printIfChanged(index: number): void {
    const run = this.#runs[index] as RunLine;
    // A stage ending (no stage named until the next starts) is no step of its own.
    const stage = run.stage ?? (this.#printed[index] ?? '').split('|')[2] ?? '';
    const key = `${run.status}|${Math.round(run.progress)}|${stage}`;
    if (this.#printed[index] === key) return;
    this.#printed[index] = key;
    this.#out.write(`${progressLine(run)}\n`);
  }
}
