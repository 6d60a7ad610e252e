/**
 * The compose stack of the repository, driven as a user drives it: `docker compose` commands in
 * the repository's root under a project name of the test's own, on ports of its own, with the
 * Docker engine DOCKER_HOST names. Each phase's time is kept for the closing report.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { REPO_ROOT } from '@switchyard/redis';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command in the repository's root; never throws on its exit code. */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env, timeoutMs = 900_000): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Like `run`, but a non-zero exit is an error naming the command and the end of its output. */
export async function must(command: string, args: string[], env?: NodeJS.ProcessEnv, timeoutMs?: number): Promise<string> {
  const result = await run(command, args, env, timeoutMs);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.code}: ${(result.stderr || result.stdout).slice(-2000)}`);
  return result.stdout;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The first of `count` consecutive free loopback ports, looked for in 20000–59999. */
export async function freePortRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 40_000);
    const checks = await Promise.all(Array.from({ length: count }, (_, i) => portFree(base + i)));
    if (checks.every(Boolean)) return base;
  }
  throw new Error(`no ${count} consecutive free ports found`);
}

export interface ComposeStackOptions {
  apiPort: number;
  mcpPort: number;
  /** The first of the five tool-service ports published on loopback. */
  toolPort: number;
  /** More variables for the stack (the services' settings). */
  env?: Record<string, string>;
}

/** One compose project: its name, keys and ports, and the commands on it. */
export class ComposeStack {
  readonly project = `sy-compose-${randomBytes(3).toString('hex')}`;
  readonly apiKey = randomBytes(18).toString('base64url');
  readonly toolKey = randomBytes(18).toString('base64url');
  readonly apiUrl: string;
  readonly mcpUrl: string;
  readonly phases: { name: string; seconds: number }[] = [];
  readonly env: NodeJS.ProcessEnv;

  constructor(readonly options: ComposeStackOptions) {
    this.apiUrl = `http://127.0.0.1:${options.apiPort}`;
    this.mcpUrl = `http://127.0.0.1:${options.mcpPort}/mcp`;
    this.env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      ...(process.env.DOCKER_HOST ? { DOCKER_HOST: process.env.DOCKER_HOST } : {}),
      COMPOSE_PROJECT_NAME: this.project,
      API_KEYS: this.apiKey,
      TOOL_SERVICE_API_KEY: this.toolKey,
      PORT: String(options.apiPort),
      MCP_PORT: String(options.mcpPort),
      TOOL_PORTS: `${options.toolPort}-${options.toolPort + 4}`,
      ...options.env,
    };
  }

  /** `docker compose …` in this project. */
  compose(args: string[], timeoutMs?: number): Promise<string> {
    return must('docker', ['compose', ...args], this.env, timeoutMs);
  }

  docker(args: string[], timeoutMs?: number): Promise<string> {
    return must('docker', args, this.env, timeoutMs);
  }

  /** Times `work` as one phase of the report, and prints it at once. */
  async phase<T>(name: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      const seconds = Math.round((performance.now() - started) / 100) / 10;
      this.phases.push({ name, seconds });
      process.stdout.write(`  ⏱ ${name}: ${seconds} s\n`);
    }
  }

  /** The ids of a service's containers, running or not. */
  async containers(service: string): Promise<string[]> {
    return (await this.compose(['ps', '-q', service])).split('\n').filter(Boolean);
  }

  /** What `docker inspect` says of a container, at a Go template. */
  async inspect(id: string, format: string): Promise<string> {
    return (await this.docker(['inspect', '--format', format, id])).trim();
  }

  /**
   * GET a path of a port inside a container (the workers' metrics port is not published), with
   * bash's /dev/tcp: a Node process started for each look costs seconds of CPU on a busy machine.
   */
  async getInside(id: string, port: number, pathname: string): Promise<string> {
    const request = `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET ${pathname} HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;
    const answer = await this.docker(['exec', id, 'bash', '-c', request]);
    const [head = '', ...body] = answer.split('\r\n\r\n');
    if (!/^HTTP\/1\.[01] 200/.test(head)) throw new Error(`GET ${pathname} in ${id.slice(0, 12)}: ${head.split('\r\n')[0]}`);
    return body.join('\r\n\r\n');
  }

  /** A request to the published API with the stack's key. */
  async api<T>(pathname: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
    const res = await fetch(`${this.apiUrl}${pathname}`, { ...init, headers: { authorization: `Bearer ${this.apiKey}`, 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) } });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  }
}

/** Waits until `check` answers a value `done` accepts; the error says what was waited for and what was seen last. */
export async function waitFor<T>(what: string, check: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number, intervalMs = 500): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastError: unknown;
  while (Date.now() < until) {
    try {
      last = await check();
      if (done(last)) return last;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  const seen = last !== undefined ? JSON.stringify(last).slice(0, 500) : String(lastError);
  throw new Error(`${what}: not within ${timeoutMs} ms (last seen: ${seen})`);
}
