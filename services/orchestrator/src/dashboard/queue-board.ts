/**
 * Bull Board (`@bull-board/express` with its BullMQ adapter) over every queue of the deployment:
 * the step queue of each configured tool service and of each step kind, and the batch dispatcher;
 * then, while someone looks at the board, any other queue found under the prefix (a queue of a
 * tool service a worker was configured with later), looked for at most every `refreshMs`.
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { Queue } from 'bullmq';
import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { kindQueue, QUEUES, STEP_KINDS, toolQueue, AGENT_QUEUE, CHILD_QUEUE, WAITS_QUEUE } from '@switchyard/pipeline';
import { globEscape, scanKeys } from '@switchyard/redis';

/** Where the board is served. */
export const QUEUE_BOARD_PATH = '/admin/queues';

/** The queues a deployment has by its configuration: a tool service's, a step kind's, the dispatcher's. */
export function configuredQueueNames(services: readonly string[]): string[] {
  return [...services.map(toolQueue), ...STEP_KINDS.map(kindQueue), AGENT_QUEUE, WAITS_QUEUE, CHILD_QUEUE, QUEUES.dispatch, QUEUES.scheduleTick, QUEUES.notifyDelivery];
}

export interface QueueBoardOptions {
  /** Shared with the API: the board's reads are short, non-blocking commands. */
  redis: Redis;
  prefix: string;
  queueNames: readonly string[];
  /** Least ms between two looks for queues not configured here (default 10000). */
  refreshMs?: number;
}

export interface QueueBoard {
  /** The board's pages and API, to mount at QUEUE_BOARD_PATH behind the key. */
  handler: RequestHandler;
  /** The queues shown now. */
  names(): string[];
  /** Looks for queues under the prefix now, and shows the new ones. */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Bull Board's page asks Google for its fonts; the board works on the system's, and a look at the
 * queues should tell no one else. Its own inline bootstrap script and styles stay allowed.
 */
const BOARD_CSP = "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; object-src 'none'; base-uri 'self'; frame-ancestors 'none'";
/** Keys looked at per refresh, at most: a board must not walk a huge keyspace each time. */
const MAX_SCANNED_KEYS = 200_000;

export function createQueueBoard(options: QueueBoardOptions): QueueBoard {
  const serverAdapter = new ExpressAdapter().setBasePath(QUEUE_BOARD_PATH);
  const queues = new Map<string, Queue>();
  const open = (name: string) => {
    const queue = new Queue(name, { connection: options.redis, prefix: options.prefix });
    queue.on('error', () => undefined); // the shared connection's errors are reported where it is followed
    queues.set(name, queue);
    return new BullMQAdapter(queue);
  };
  const board = createBullBoard({ queues: options.queueNames.map(open), serverAdapter, options: { uiConfig: { boardTitle: 'Switchyard queues' } } });
  const router = serverAdapter.getRouter() as RequestHandler;
  const refreshMs = options.refreshMs ?? 10_000;
  let lastRefresh = 0;

  const refresh = async () => {
    lastRefresh = Date.now();
    // A BullMQ queue keeps a `meta` hash under `{prefix}:{name}:`; queue names have no colon.
    const head = `${options.prefix}:`;
    for (const key of await scanKeys(options.redis, `${globEscape(head)}*:meta`, { maxScanned: MAX_SCANNED_KEYS })) {
      const name = key.slice(head.length, -':meta'.length);
      if (name && !name.includes(':') && !queues.has(name)) board.addQueue(open(name));
    }
  };

  return {
    handler: (req, res, next) => {
      res.set('Content-Security-Policy', BOARD_CSP);
      if (Date.now() - lastRefresh < refreshMs) return router(req, res, next);
      refresh().then(() => router(req, res, next), next);
    },
    names: () => [...queues.keys()],
    refresh,
    async close() {
      await Promise.all([...queues.values()].map((q) => q.close()));
    },
  };
}
