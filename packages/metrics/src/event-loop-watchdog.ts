/**
 * A watchdog for a process whose event loop must never stall: a thread of its own watches a
 * heartbeat the event loop writes, and when the beat stops for `stallMs` it writes one line to
 * stderr and kills the process with SIGKILL, so that its supervisor (the launcher, compose's
 * restart policy) starts a new one and BullMQ hands its jobs on. A stalled event loop cannot do
 * any of this itself: no timer, signal handler or lock renewal of it runs.
 */
import { Worker } from 'node:worker_threads';

export interface EventLoopWatchdogOptions {
  /** How long the event loop may be blocked before the process is killed, in ms. */
  stallMs: number;
  /** Names the process in the line written before it is killed. */
  name: string;
}

export interface EventLoopWatchdog {
  stop(): Promise<void>;
}

// Plain JavaScript, evaluated as the thread: it needs nothing of the project's TypeScript.
const THREAD = `
const { workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const beats = new Int32Array(workerData.beats);
let last = Atomics.load(beats, 0);
let since = Date.now();
setInterval(() => {
  const now = Atomics.load(beats, 0);
  if (now !== last) { last = now; since = Date.now(); return; }
  const stalled = Date.now() - since;
  if (stalled < workerData.stallMs) return;
  writeSync(2, JSON.stringify({ level: 'fatal', name: workerData.name, msg: 'event loop blocked: killing the process so that it is replaced', stalled_ms: stalled }) + '\\n');
  process.kill(process.pid, 'SIGKILL');
}, Math.max(50, Math.floor(workerData.stallMs / 10)));
`;

/** Starts the watchdog; `stallMs` 0 starts none. */
export function startEventLoopWatchdog(options: EventLoopWatchdogOptions): EventLoopWatchdog {
  if (options.stallMs <= 0) return { stop: () => Promise.resolve() };
  const beats = new Int32Array(new SharedArrayBuffer(4));
  const beat = setInterval(() => Atomics.add(beats, 0, 1), Math.max(10, Math.floor(options.stallMs / 20)));
  beat.unref();
  const thread = new Worker(THREAD, { eval: true, workerData: { beats: beats.buffer, stallMs: options.stallMs, name: options.name }, resourceLimits: { maxOldGenerationSizeMb: 16 } });
  thread.unref();
  return {
    async stop() {
      clearInterval(beat);
      await thread.terminate();
    },
  };
}
