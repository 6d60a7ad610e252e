/**
 * `npm run stack` as a user starts it, for tests of what the launcher hands its children and of
 * the docs' commands: started with `env` over this process's, on free ports, one worker.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort, REPO_ROOT } from '@switchyard/redis';
import { launcherKey } from '../args.js';

export interface LaunchedStack {
  child: ChildProcess;
  apiUrl: string;
  apiKey: string;
  /** Everything the launcher has printed so far. */
  output: () => string;
  /** SIGTERM to the launcher's process group, awaited. */
  stop(): Promise<void>;
}

/** Resolves once the launcher says where it serves; throws with its last output if it stops or takes 2 minutes. */
export async function launchStack(env: Record<string, string>): Promise<LaunchedStack> {
  const [port, mcpPort] = await Promise.all([freePort(), freePort()]);
  const child = spawn('npm', ['run', 'stack'], { cwd: REPO_ROOT, env: { ...process.env, PORT: String(port), MCP_PORT: String(mcpPort), WORKERS: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const append = (chunk: Buffer) => (output += chunk.toString('utf8'));
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid as number), 'SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    // A key of API_KEYS is not printed: the first of them that may run is the one to call with.
    const serving = /Serving at (\S+)\s+API key: (\S+)/.exec(output);
    const given = env.API_KEYS ? launcherKey(env, { batch: false }) : undefined;
    const apiKey = given?.kind === 'key' ? given.key : serving?.[2];
    if (serving?.[1] && apiKey) return { child, apiUrl: serving[1], apiKey, output: () => output, stop };
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`npm run stack did not serve:\n${output.slice(-3000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
