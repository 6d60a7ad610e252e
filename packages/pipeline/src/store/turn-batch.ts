/**
 * Items gathered over one turn of the event loop and handed over together. Under load a process
 * finishes many jobs per turn (their replies arrive in one read), and one Redis call for all of
 * them costs far less than one each; on an idle process a batch of one costs what a lone call did.
 * The first item of a turn schedules the hand-over with setImmediate, which runs once the turn's
 * I/O callbacks and their promise continuations have all had their say.
 */
export class TurnBatch<T> {
  readonly #handOver: (items: T[]) => void;
  #items: T[] = [];
  #scheduled = false;

  /** @param handOver receives every item gathered since the last hand-over, in order (never none) */
  constructor(handOver: (items: T[]) => void) {
    this.#handOver = handOver;
  }

  push(item: T): void {
    this.#items.push(item);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.drain());
    }
  }

  /** Hands over what is gathered now, e.g. before closing; the turn's scheduled hand-over then finds nothing. */
  drain(): void {
    this.#scheduled = false;
    const items = this.#items;
    this.#items = [];
    if (items.length > 0) this.#handOver(items);
  }
}
