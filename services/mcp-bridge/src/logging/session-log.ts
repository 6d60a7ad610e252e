/**
 * MCP logging for one session: `logging/setLevel` chooses the least severe level the session
 * hears (kept in the session's state, so a session taken up by another bridge keeps it), and
 * `notifications/message` carries the events of the runs the session started or subscribed to
 * and the bridge's own warnings, never below that level. Each run is followed on its event
 * stream until its `done` event.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { LoggingLevelSchema, SetLevelRequestSchema, type LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { RunStore, StreamHub } from '@switchyard/pipeline';
import type { SessionState } from '@switchyard/tool-suite';
import type { BridgeNotices } from './bridge-notices.js';
import { runMessage } from './run-messages.js';

/** Where the session's state keeps its level. */
export const LOG_LEVEL_KEY = 'mcp.log_level';

const SEVERITY = new Map(LoggingLevelSchema.options.map((level, index) => [level, index]));
const severity = (level: LoggingLevel) => SEVERITY.get(level) ?? 0;

export interface SessionLogOptions {
  server: Server;
  state: SessionState;
  store: RunStore;
  hub: StreamHub;
  notices: BridgeNotices;
  /** The level before the client sets one (default "info": stage changes and above, no progress or text). */
  defaultLevel?: LoggingLevel;
  /** Most runs followed for the log at once (default 200): a larger batch logs its first ones. */
  maxRuns?: number;
}

export class SessionLog {
  readonly #options: SessionLogOptions;
  readonly #runs = new Map<string, { stop: () => void; started: boolean }>();
  readonly #stopNotices: () => void;
  #level: LoggingLevel;
  #chosen = false;
  #closed = false;

  constructor(options: SessionLogOptions) {
    this.#options = options;
    this.#level = options.defaultLevel ?? 'info';
    // Replaces the SDK's handler, which keeps the level in memory only.
    options.server.setRequestHandler(SetLevelRequestSchema, async (request) => {
      this.#level = request.params.level;
      this.#chosen = true;
      await options.state.set(LOG_LEVEL_KEY, request.params.level);
      return {};
    });
    void options.state.get<string>(LOG_LEVEL_KEY).then(
      (stored) => {
        const parsed = LoggingLevelSchema.safeParse(stored);
        if (parsed.success && !this.#chosen) this.#level = parsed.data;
      },
      () => undefined,
    );
    this.#stopNotices = options.notices.listen((notice) => this.log(notice.level, 'bridge', { message: notice.message, ...notice.details }));
  }

  get level(): LoggingLevel {
    return this.#level;
  }

  /** Sends a message unless it is below the session's level. */
  log(level: LoggingLevel, logger: string, data: Record<string, unknown>): void {
    if (this.#closed || severity(level) < severity(this.#level)) return;
    void this.#options.server.sendLoggingMessage({ level, logger, data }).catch(() => undefined);
  }

  /**
   * Logs the events of `runId` until it is done: from its first when the session started it,
   * from now on when it subscribed to it.
   */
  async followRun(runId: string, reason: 'started' | 'subscribed'): Promise<void> {
    const followed = this.#runs.get(runId);
    if (followed) {
      followed.started ||= reason === 'started';
      return;
    }
    if (this.#closed || this.#runs.size >= (this.#options.maxRuns ?? 200)) return;
    const key = this.#options.store.keys.events(runId);
    const entry: { stop: () => void; started: boolean } = { stop: () => undefined, started: reason === 'started' };
    this.#runs.set(runId, entry);
    const after = reason === 'started' ? '0' : ((await this.#options.store.redis.xrevrange(key, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0');
    if (this.#runs.get(runId) !== entry) return; // unfollowed meanwhile
    const stop = this.#options.hub.follow(key, after, (events) => {
      for (const event of events) {
        const message = runMessage(runId, event);
        if (message) this.log(message.level, 'run', message.data);
        if (event.type === 'done') this.unfollowRun(runId, true);
      }
    });
    entry.stop = stop;
  }

  /** Stops logging a run the session subscribed to (one it started is logged to its end, unless `always`). */
  unfollowRun(runId: string, always = false): void {
    const entry = this.#runs.get(runId);
    if (!entry || (entry.started && !always)) return;
    this.#runs.delete(runId);
    entry.stop();
  }

  close(): void {
    this.#closed = true;
    this.#stopNotices();
    for (const entry of this.#runs.values()) entry.stop();
    this.#runs.clear();
  }
}
