/**
 * What the launcher was asked to do, from its command line and the few variables it reads itself.
 * Pure, so that every combination is tested without starting anything.
 */
import { allows, apiKeyList } from '@switchyard/config';

export const SAMPLE_TOPICS = [
  'a lighthouse keeper who collects lost letters',
  'a robot learning to bake bread for a village',
  'two rival cartographers mapping a moving island',
] as const;

export const USAGE = `npm start [-- [--serve] [--compiled] ["a topic" ...]]    the stack, a batch of stories, then stop (or keep serving)
npm start -- --agent "a topic" [--serve]                    the stack, the research agent on a topic (pipelines/research-agent.yaml)
npm run stack [-- --compiled]                              the stack, serving, without a batch

--compiled runs the services' compiled JavaScript (built first with npm run build) instead of tsx.

Variables: PORT, API_KEYS, REDIS_URL, WORKERS, SEARCH_/OUTLINE_/WRITING_/EDITING_SERVICE_URL,
TOOL_SERVICE_API_KEY, LOG_LEVEL (children's, default warn); every service variable is handed on.`;

export interface LaunchPlan {
  /** Topics of the batch; empty when no batch is written. */
  topics: string[];
  /** Keep the stack running after the batch (or without one). */
  serve: boolean;
  workers: number;
  /** A port asked for with PORT, or undefined for 8080-or-a-free-one. */
  port: number | undefined;
  /** Run the services' compiled JavaScript (`npm run build`) rather than their sources through tsx. */
  compiled: boolean;
  /** A topic for the research agent, which then runs instead of the batch. */
  agent?: string | undefined;
}

export type ParsedLaunch = { kind: 'plan'; plan: LaunchPlan } | { kind: 'help' } | { kind: 'error'; message: string };

export function parseLaunch(argv: readonly string[], env: Record<string, string | undefined>): ParsedLaunch {
  let serve = false;
  let batch = true;
  let compiled = false;
  const topics: string[] = [];
  let agent: string | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--help' || arg === '-h') return { kind: 'help' };
    else if (arg === '--agent' || arg.startsWith('--agent=')) {
      agent = (arg === '--agent' ? argv[(i += 1)] : arg.slice('--agent='.length))?.trim();
      if (!agent) return { kind: 'error', message: '--agent takes a topic: npm start -- --agent "a topic"' };
    }
    else if (arg === '--serve') serve = true;
    else if (arg === '--no-batch') batch = false;
    else if (arg === '--compiled') compiled = true;
    else if (arg.startsWith('-')) return { kind: 'error', message: `unknown option ${arg} (try --help)` };
    else if (arg.trim()) topics.push(arg.trim());
  }
  if (!batch && topics.length > 0) return { kind: 'error', message: '--no-batch and topics do not go together' };
  if (agent !== undefined && (topics.length > 0 || !batch)) return { kind: 'error', message: '--agent runs the research agent instead of a batch: give it no topics or --no-batch' };

  const workers = Number(env.WORKERS || 2);
  if (!Number.isInteger(workers) || workers < 1 || workers > 64) return { kind: 'error', message: `WORKERS must be a whole number from 1 to 64, got "${env.WORKERS}"` };
  const port = env.PORT ? Number(env.PORT) : undefined;
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65_535)) return { kind: 'error', message: `PORT must be a port number, got "${env.PORT}"` };

  return {
    kind: 'plan',
    plan: { topics: batch && agent === undefined ? (topics.length > 0 ? topics : [...SAMPLE_TOPICS]) : [], serve: serve || !batch, workers, port, compiled, ...(agent === undefined ? {} : { agent }) },
  };
}

/**
 * The key the launcher itself calls the API with, from API_KEYS as the services parse it: the
 * first key holding `run`, which starting its batch needs (with no batch, the first key if none
 * does, to print). `key` undefined: API_KEYS is unset and the local key is used. A bad entry, or
 * a batch with no key that may start it, is one line.
 */
export function launcherKey(env: Record<string, string | undefined>, options: { batch: boolean }): { kind: 'key'; key: string | undefined } | { kind: 'error'; message: string } {
  if (!env.API_KEYS?.trim()) return { kind: 'key', key: undefined };
  const parsed = apiKeyList.safeParse(env.API_KEYS);
  if (!parsed.success) return { kind: 'error', message: `API_KEYS: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
  const runner = parsed.data.find((entry) => allows(entry.scopes, 'run'));
  if (!runner && options.batch) return { kind: 'error', message: "API_KEYS has no key with the 'run' scope, which the launcher's batch needs (give one, or serve with --no-batch)" };
  const key = (runner ?? parsed.data[0])?.key;
  return { kind: 'key', key };
}
