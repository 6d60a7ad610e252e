/**
 * A redis-server of a test's own that the test can take away and bring back on the same port and
 * data directory (AOF on, fsynced every second, as deployed): killed with SIGKILL, or shut down
 * the way an operator does. For fault tests; a service under test reconnects to the same URL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { findRedisServer } from './install.js';
import { freePort } from './free-port.js';
import { pingRedis } from './local-server.js';

export class RestartableRedis {
  readonly url: string;
  readonly #port: number;
  readonly #dataDir: string;
  readonly #binary: string;
  #child: ChildProcess | undefined;

  private constructor(options: { port: number; dataDir: string; binary: string }) {
    this.#port = options.port;
    this.#dataDir = options.dataDir;
    this.#binary = options.binary;
    this.url = `redis://127.0.0.1:${options.port}`;
  }

  /** @param options.searchPath where to look for redis-server (a PATH) */
  static async start(options: { searchPath: string }): Promise<RestartableRedis> {
    const binary = findRedisServer(options.searchPath);
    if (!binary) throw new Error('redis-server is not installed');
    const redis = new RestartableRedis({ port: await freePort(), dataDir: mkdtempSync(path.join(os.tmpdir(), 'switchyard-restartable-redis-')), binary });
    await redis.up();
    return redis;
  }

  get running(): boolean {
    return this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Starts the server (again) and waits until it answers. */
  async up(): Promise<void> {
    const args = ['--port', String(this.#port), '--bind', '127.0.0.1', '--dir', this.#dataDir, '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '', '--protected-mode', 'yes'];
    this.#child = spawn(this.#binary, args, { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    while (!(await pingRedis(this.url, 500))) {
      if (!this.running || Date.now() > deadline) throw new Error(`redis-server did not start on port ${this.#port}`);
      await sleep(50);
    }
  }

  /** SIGKILL: whatever was not yet fsynced to the AOF is lost, as on a crash. */
  async kill(): Promise<void> {
    await this.#stop('SIGKILL');
  }

  /** SIGTERM: Redis flushes its AOF and exits, as on `redis-cli shutdown`. */
  async shutdown(): Promise<void> {
    await this.#stop('SIGTERM');
  }

  async #stop(signal: NodeJS.Signals): Promise<void> {
    const child = this.#child;
    if (!child || !this.running) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  }

  /** Stops the server and removes its data. */
  async close(): Promise<void> {
    await this.shutdown();
    rmSync(this.#dataDir, { recursive: true, force: true });
  }
}
