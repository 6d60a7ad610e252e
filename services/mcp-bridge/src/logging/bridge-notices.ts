/**
 * Warnings and errors of the bridge process that its MCP clients should hear of, beside its own
 * log: a run stream that could not be read, shipped pipelines that could not be registered. Each
 * session's log forwards them as `notifications/message` at its chosen level.
 */

export type NoticeLevel = 'warning' | 'error';

export interface BridgeNotice {
  level: NoticeLevel;
  message: string;
  details?: Record<string, unknown>;
}

export class BridgeNotices {
  readonly #listeners = new Set<(notice: BridgeNotice) => void>();

  /** Calls `listener` with every notice from now on; answers the function that stops it. */
  listen(listener: (notice: BridgeNotice) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  warn(message: string, details?: Record<string, unknown>): void {
    this.#tell({ level: 'warning', message, ...(details ? { details } : {}) });
  }

  error(message: string, details?: Record<string, unknown>): void {
    this.#tell({ level: 'error', message, ...(details ? { details } : {}) });
  }

  #tell(notice: BridgeNotice): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(notice);
      } catch {
        // One session's failure to send is no reason to keep the notice from the others.
      }
    }
  }
}
