/**
 * A streamed stage's chunks, joined into one `content` event per short interval. A tool service
 * streams text in many small chunks (a word or a phrase each); one event per chunk costs a Redis
 * script call and a stream entry each, and readers gain nothing from a 5 ms cadence. Chunks are
 * joined in arrival order and emitted when the interval since the first one buffered has passed,
 * when the buffer is large, and when the call ends, so no text is lost or reordered.
 */

/** How long the first buffered chunk waits for others (default 50 ms). */
export const CONTENT_FLUSH_MS = 50;
/** Buffered text past which it is emitted at once (default 4 KiB). */
export const CONTENT_FLUSH_CHARS = 4096;

export interface ContentCoalescerOptions {
  /** Emits one joined piece of text; called in order. */
  emit: (text: string) => void;
  /** Default CONTENT_FLUSH_MS. */
  flushMs?: number;
  /** Default CONTENT_FLUSH_CHARS. */
  flushChars?: number;
}

export class ContentCoalescer {
  readonly #emit: (text: string) => void;
  readonly #flushMs: number;
  readonly #flushChars: number;
  #buffer: string[] = [];
  #size = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: ContentCoalescerOptions) {
    this.#emit = options.emit;
    this.#flushMs = options.flushMs ?? CONTENT_FLUSH_MS;
    this.#flushChars = options.flushChars ?? CONTENT_FLUSH_CHARS;
  }

  push(chunk: string): void {
    if (chunk.length === 0) return;
    this.#buffer.push(chunk);
    this.#size += chunk.length;
    if (this.#size >= this.#flushChars) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), this.#flushMs);
  }

  /** Emits what is buffered now. */
  flush(): void {
    this.#clearTimer();
    if (this.#buffer.length === 0) return;
    const text = this.#buffer.join('');
    this.#buffer = [];
    this.#size = 0;
    this.#emit(text);
  }

  /** Forgets what is buffered: the stream it came from starts over (a `reset` follows). */
  drop(): void {
    this.#clearTimer();
    this.#buffer = [];
    this.#size = 0;
  }

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
