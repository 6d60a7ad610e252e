/**
 * A local redis-server for development, the main job and tests: started on a free loopback
 * port with its data (AOF on) under a directory of ours, and stopped when this process exits.
 * A server already running from the same directory is reused rather than started twice, since
 * two servers writing one AOF would corrupt it: two callers starting at once (two launchers run
 * together) take turns under a lock file, and the second finds the first one's server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { linkSync, mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';

export interface LocalRedis {
  url: string;
  /** True when this process started the server (and so stops it). */
  owned: boolean;
  stop(): Promise<void>;
}

/** PINGs a Redis URL; true when it answers PONG within the timeout. */
export async function pingRedis(url: string, timeoutMs = 1000): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface RunningRecord {
  pid: number;
  port: number;
}

function readRecord(file: string): RunningRecord | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (parsed && typeof parsed === 'object' && 'pid' in parsed && 'port' in parsed) {
      return { pid: Number(parsed.pid), port: Number(parsed.port) };
    }
  } catch {
    // no record, or a torn one: treat as not running
  }
  return undefined;
}

async function waitForReady(url: string, child: ChildProcess, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  let exited: number | null = null;
  child.once('exit', (code) => (exited = code ?? -1));
  while (Date.now() < until) {
    if (exited !== null) throw new Error(`redis-server exited with code ${exited} during start-up`);
    if (await pingRedis(url, 500)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server did not answer PING within ${deadlineMs} ms`);
}

function spawnServer(binary: string, dataDir: string, port: number): ChildProcess {
  const args = [
    '--port', String(port),
    '--bind', '127.0.0.1',
    '--dir', dataDir,
    '--appendonly', 'yes',
    '--appendfsync', 'everysec',
    '--save', '',
    '--daemonize', 'no',
    '--protected-mode', 'yes',
    '--logfile', path.join(dataDir, 'redis.log'),
  ];
  const child = spawn(binary, args, { stdio: 'ignore' });
  // The server lives as long as its owner: it does not keep the owner's event loop alive, and the exit hook stops it.
  child.unref();
  return child;
}

/** SIGTERM, then SIGKILL after 5 s; resolves once the server process has exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** How long a caller waits for another one's start before giving up (ms). */
const START_LOCK_WAIT_MS = 60_000;

/**
 * Runs `start` holding `<dataDir>/start.lock`. The lock is made by linking a file that already
 * holds this process's pid, so it never exists without its holder's pid; a lock whose holder has
 * died is taken over.
 */
async function underStartLock<T>(dataDir: string, start: () => Promise<T>): Promise<T> {
  const lock = path.join(dataDir, 'start.lock');
  const mine = path.join(dataDir, `start.lock.${process.pid}.${Math.random().toString(36).slice(2)}`);
  writeFileSync(mine, String(process.pid));
  const until = Date.now() + START_LOCK_WAIT_MS;
  try {
    for (;;) {
      try {
        linkSync(mine, lock);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = lockHolder(lock);
      // Released meanwhile: the next link takes it. A file with no live pid is a dead start's.
      if (holder === null) continue;
      if (holder === 0 || !isAlive(holder)) rmSync(lock, { force: true });
      else if (Date.now() > until) throw new Error(`another process has been starting redis-server in ${dataDir} for ${START_LOCK_WAIT_MS / 1000} s (${lock}, pid ${holder})`);
      else await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    rmSync(mine, { force: true });
  }
  try {
    return await start();
  } finally {
    rmSync(lock, { force: true });
  }
}

/** The pid holding `lock` (0 for a file holding none); null when it was released meanwhile. */
function lockHolder(lock: string): number | null {
  try {
    return Number(readFileSync(lock, 'utf8').trim()) || 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** The server recorded as running from `recordFile`, when it answers. */
async function runningServer(recordFile: string): Promise<LocalRedis | undefined> {
  const existing = readRecord(recordFile);
  if (!existing || !isAlive(existing.pid)) return undefined;
  const url = `redis://127.0.0.1:${existing.port}`;
  return (await pingRedis(url)) ? { url, owned: false, stop: async () => undefined } : undefined;
}

/**
 * Starts (or reuses) a redis-server whose data lives in `dataDir`.
 * @param options.binary path of redis-server
 * @param options.dataDir directory for the AOF, log and the running record
 * @param options.startTimeoutMs how long to wait for the first PONG (default 10 s)
 */
export async function startLocalRedis(options: { binary: string; dataDir: string; startTimeoutMs?: number }): Promise<LocalRedis> {
  const dataDir = path.resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const recordFile = path.join(dataDir, 'running.json');
  return (await runningServer(recordFile)) ?? underStartLock(dataDir, async () => (await runningServer(recordFile)) ?? spawnRecorded(options.binary, dataDir, recordFile, options.startTimeoutMs));
}

async function spawnRecorded(binary: string, dataDir: string, recordFile: string, startTimeoutMs: number | undefined): Promise<LocalRedis> {
  let lastError: unknown;
  // A free port can be taken between asking and binding; a second try settles that race.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const child = spawnServer(binary, dataDir, port);
    const killOnExit = () => child.kill('SIGTERM');
    process.once('exit', killOnExit);
    try {
      await waitForReady(url, child, startTimeoutMs ?? 10_000);
    } catch (error) {
      lastError = error;
      process.removeListener('exit', killOnExit);
      await stopChild(child);
      continue;
    }
    writeFileSync(recordFile, JSON.stringify({ pid: child.pid, port }));
    return {
      url,
      owned: true,
      stop: async () => {
        process.removeListener('exit', killOnExit);
        await stopChild(child);
        rmSync(recordFile, { force: true });
      },
    };
  }
  throw new Error(`could not start redis-server in ${dataDir}: ${String(lastError)}`);
}
