/**
 * Each service's env.ts declares a zod schema and calls `loadEnv` once at start-up. A bad value
 * stops the process with a single line naming the variable, before anything else happens.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { apiKeyList, type ApiKeyEntry } from './api-keys.js';

export { SCOPES, allows, apiKeyList, parseApiKeyEntry, withImpliedScopes } from './api-keys.js';
export type { ApiKeyEntry, Scope } from './api-keys.js';

export class EnvError extends Error {
  override name = 'EnvError';
}

/** Variables whose value is a secret: a bad one is named, never shown. */
const SECRET_VARIABLE = /(^|_)(KEYS?|SECRET|TOKEN|PASSWORD)(_|$)/;

/** Parses `source` against `schema`; throws EnvError whose message names the first bad variable. */
export function parseEnv<S extends z.ZodType>(options: { service: string; schema: S; source: Record<string, string | undefined> }): z.output<S> {
  // An empty variable means unset, as compose files and shells pass them (`LLM_BASE_URL=`).
  const source = Object.fromEntries(Object.entries(options.source).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = options.schema.safeParse(source);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const name = issue?.path.map(String).join('.') || '(environment)';
  const variable = issue?.path.length ? String(issue.path[0]) : undefined;
  const value = variable === undefined ? undefined : options.source[variable];
  const shown = value === undefined ? 'unset' : SECRET_VARIABLE.test(variable ?? '') ? 'value hidden' : `"${value.length > 60 ? `${value.slice(0, 60)}…` : value}"`;
  throw new EnvError(`${options.service}: invalid environment variable ${name} (${shown}): ${issue?.message ?? 'invalid'}`);
}

/** parseEnv, but on failure writes the one line to stderr and exits with code 2. */
export function loadEnv<S extends z.ZodType>(options: { service: string; schema: S; source: Record<string, string | undefined> }): z.output<S> {
  try {
    return parseEnv(options);
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
}

/** A comma-separated list variable, e.g. `API_KEYS=a,b` → ["a","b"]. */
export const commaList = z.string().transform((s) => s.split(',').map((item) => item.trim()).filter(Boolean));

/** A boolean variable: 1/0, true/false, yes/no. */
export const booleanFlag = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no'])
  .transform((value) => value === '1' || value === 'true' || value === 'yes');

/** Seed nodes of a Redis Cluster, `host:port,host:port`. */
export const clusterNodes = commaList.pipe(z.array(z.string().regex(/^(\[[^\]]+\]|[^:,/@\s]+):\d{1,5}$/, 'each seed node as host:port')).min(1));

const SEVEN_DAYS_S = 7 * 24 * 3600;

/**
 * The variables of every process that works on the pipeline's Redis (orchestrator, workers, MCP
 * bridge), so that they read them alike.
 */
export const pipelineEnvShape = {
  /**
   * Redis to use: `redis://…` for one Redis, `redis-cluster://host:port,host:port` (or
   * `rediss-cluster://`, credentials as in a URL) for a Redis Cluster's seed nodes; unset starts a
   * local redis-server (development).
   */
  REDIS_URL: z.string().min(1).optional(),
  /** A Redis Cluster's seed nodes, `host:port,host:port`: the same as REDIS_URL=redis-cluster://…; not both. */
  REDIS_CLUSTER_NODES: clusterNodes.optional(),
  /**
   * Name of the deployment's keyspace: queues and shared keys live under `{name}` (one Redis Cluster
   * slot, as BullMQ needs on a cluster), each run's keys under a tag of its own (see
   * packages/pipeline/src/store/keys.ts). `sy` and `{sy}` name the same keyspace. Default `sy`.
   */
  QUEUE_PREFIX: z.string().regex(/^(\{[\w:.-]+\}|[\w:.-]+)$/, 'letters, digits and _:.- (optionally in one pair of braces)').default('sy'),
  /** Seconds a finished run stays readable (default 7 days, at most a year). */
  RUN_RETENTION_S: z.coerce.number().int().positive().max(365 * 24 * 3600).default(SEVEN_DAYS_S),
};

/**
 * The budget of one evaluation of a user's JSONata expression, in every process that evaluates
 * them (orchestrator, workers, MCP bridge): see docs/SECURITY.md, "Expressions".
 */
export const expressionEnvShape = {
  /** Wall-clock time of one evaluation. Default 1000 ms. */
  EXPRESSION_TIMEOUT_MS: z.coerce.number().int().min(10).max(600_000).default(1000),
  /** Nesting of an evaluation (recursion counts). Default 500. */
  EXPRESSION_MAX_DEPTH: z.coerce.number().int().min(10).max(100_000).default(500),
  /** Items of one sequence or range. Default 1,000,000. */
  EXPRESSION_MAX_SEQUENCE: z.coerce.number().int().min(100).max(10_000_000).default(1_000_000),
  /** Heap of a sandbox process. Default 256 MB. */
  EXPRESSION_MEMORY_MB: z.coerce.number().int().min(32).max(16_384).default(256),
  /** Bytes of an expression's value as JSON. Default 8 MiB. */
  EXPRESSION_MAX_RESULT_BYTES: z.coerce.number().int().min(1024).max(512 * 1024 * 1024).default(8 * 1024 * 1024),
  /** Sandbox processes evaluating at once, per service process. Default 2. */
  EXPRESSION_PROCESSES: z.coerce.number().int().min(1).max(64).default(2),
};

/** The parsed expressionEnvShape variables, as the expression sandbox takes them. */
export function expressionSandboxConfig(env: {
  EXPRESSION_TIMEOUT_MS: number;
  EXPRESSION_MAX_DEPTH: number;
  EXPRESSION_MAX_SEQUENCE: number;
  EXPRESSION_MEMORY_MB: number;
  EXPRESSION_MAX_RESULT_BYTES: number;
  EXPRESSION_PROCESSES: number;
}) {
  return {
    processes: env.EXPRESSION_PROCESSES,
    budget: {
      timeoutMs: env.EXPRESSION_TIMEOUT_MS,
      maxDepth: env.EXPRESSION_MAX_DEPTH,
      maxSequence: env.EXPRESSION_MAX_SEQUENCE,
      memoryMb: env.EXPRESSION_MEMORY_MB,
      maxResultBytes: env.EXPRESSION_MAX_RESULT_BYTES,
    },
  };
}

/**
 * The budgets of label values that come from user definitions, in every process that counts runs,
 * stages or tool calls (orchestrator, workers, MCP bridge): the shipped pipelines and their steps
 * are always labelled by name, and the first ones met up to each budget; later ones are `other`.
 */
export const metricSeriesEnvShape = {
  /** Pipelines labelled by name besides the shipped ones (default 20). */
  METRICS_MAX_PIPELINES: z.coerce.number().int().min(0).max(10_000).default(20),
  /** Pipeline steps (pipeline and stage) labelled by name besides the shipped pipelines' (default 100). */
  METRICS_MAX_STAGES: z.coerce.number().int().min(0).max(100_000).default(100),
  /** Tools (service and tool) labelled by name (default 100). */
  METRICS_MAX_TOOLS: z.coerce.number().int().min(0).max(100_000).default(100),
  /** Fair-share keys (`key:<API key id>`, `schedule:<name>`, `v:<value>`) labelled by name in queue waits (default 20). */
  METRICS_MAX_FAIR_KEYS: z.coerce.number().int().min(0).max(10_000).default(20),
};

/** The parsed metricSeriesEnvShape variables. */
export function metricSeriesConfig(env: { METRICS_MAX_PIPELINES: number; METRICS_MAX_STAGES: number; METRICS_MAX_TOOLS: number; METRICS_MAX_FAIR_KEYS: number }) {
  return { maxPipelines: env.METRICS_MAX_PIPELINES, maxStages: env.METRICS_MAX_STAGES, maxTools: env.METRICS_MAX_TOOLS, maxFairKeys: env.METRICS_MAX_FAIR_KEYS };
}

/** The listening address and API keys of an HTTP service (orchestrator, MCP bridge). */
export function httpServiceEnvShape(defaultPort: number) {
  return {
    PORT: z.coerce.number().int().min(0).max(65_535).default(defaultPort),
    /** Default 127.0.0.1: loopback only until the deployment says otherwise. */
    HOST: z.string().min(1).default('127.0.0.1'),
    /**
     * Accepted API keys and their scopes, `k1,k2:read,k3:read+run` (see api-keys.ts); unset uses
     * (or generates) the local key under `.data/`, with every scope (local use).
     */
    API_KEYS: apiKeyList.optional(),
  };
}

/**
 * Which proxies may name the client (`TRUST_PROXY`), as Express's `trust proxy` takes it: `false`
 * (unset: the peer's address is the client's), a number of proxy hops, or the proxies' addresses
 * and subnets (and `loopback`, `linklocal`, `uniquelocal`). `true` (any peer may name any client) is
 * refused: whoever connects directly could then choose the address it is counted under.
 */
export type TrustProxy = false | number | string[];

const TRUST_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const trustEntry = (entry: string) => {
  if (TRUST_NAMES.has(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  if (rest.length > 0 || isIP(address) === 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (isIP(address) === 4 ? 32 : 128));
};

/** TRUST_PROXY's text as a TrustProxy (see there). */
export const trustProxySetting = z
  .string()
  .trim()
  .optional()
  .transform((text, ctx): TrustProxy => {
    if (text === undefined || text === '' || text === 'false') return false;
    if (/^\d{1,2}$/.test(text)) return Number(text);
    const entries = text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
    const wrong = entries.find((entry) => !trustEntry(entry));
    if (wrong === undefined && entries.length > 0) return entries;
    ctx.addIssue({ code: 'custom', message: `TRUST_PROXY takes a number of proxy hops (0-99) or a comma-separated list of proxy addresses, subnets (10.0.0.0/8) and loopback, linklocal, uniquelocal; "${wrong ?? text}" is none of these` });
    return z.NEVER;
  });

/** How many wrong API keys a client address may present (orchestrator, MCP bridge). */
export const failedKeyEnvShape = {
  /**
   * The proxies trusted to name the client in `X-Forwarded-For` (see TrustProxy; default: none,
   * the peer's address is the client's). Set it behind a proxy, or every client is counted as the proxy.
   */
  TRUST_PROXY: trustProxySetting,
  /** Wrong keys one client address may present per window; past it the address is answered 429 (default 10). */
  AUTH_FAILURE_LIMIT: z.coerce.number().int().min(1).max(10_000).default(10),
  /** The window of AUTH_FAILURE_LIMIT, in seconds from the address's first wrong key (default 60). */
  AUTH_FAILURE_WINDOW_S: z.coerce.number().int().min(1).max(24 * 3600).default(60),
};

/** The parsed failedKeyEnvShape variables, as FailedKeyLimiter takes them. */
export function failedKeyConfig(env: { AUTH_FAILURE_LIMIT: number; AUTH_FAILURE_WINDOW_S: number; TRUST_PROXY: TrustProxy }) {
  return { limit: env.AUTH_FAILURE_LIMIT, windowMs: env.AUTH_FAILURE_WINDOW_S * 1000, trustProxy: env.TRUST_PROXY };
}

/**
 * The hash-tagged form of a keyspace name: `sy` → `{sy}`, `{sy}` as is. BullMQ keeps its keys
 * under it, and on a Redis Cluster its scripts need them all in one slot: one tag gives that.
 */
export function taggedPrefix(name: string): string {
  return /^\{[^{}]+\}$/.test(name) ? name : `{${name.replace(/[{}]/g, '')}}`;
}

/** The Redis URL of REDIS_URL or REDIS_CLUSTER_NODES (as `redis-cluster://…`); EnvError when both are set. */
export function redisUrlOf(env: { REDIS_URL?: string | undefined; REDIS_CLUSTER_NODES?: string[] | undefined }): string | undefined {
  const nodes = env.REDIS_CLUSTER_NODES ?? [];
  if (nodes.length === 0) return env.REDIS_URL;
  if (env.REDIS_URL) throw new EnvError('REDIS_URL and REDIS_CLUSTER_NODES are both set: give one (REDIS_URL=redis-cluster://host:port,… is the same as REDIS_CLUSTER_NODES)');
  return `redis-cluster://${nodes.join(',')}`;
}

/** The parsed pipelineEnvShape variables, named as the services' configs name them; `prefix` is hash-tagged. */
export function pipelineConfig(env: { REDIS_URL?: string | undefined; REDIS_CLUSTER_NODES?: string[] | undefined; QUEUE_PREFIX: string; RUN_RETENTION_S: number }) {
  return { redisUrl: redisUrlOf(env), prefix: taggedPrefix(env.QUEUE_PREFIX), retentionSeconds: env.RUN_RETENTION_S };
}

/** The parsed httpServiceEnvShape variables; no keys (or an empty list) means the local key. */
export function httpServiceConfig(env: { PORT: number; HOST: string; API_KEYS?: ApiKeyEntry[] | undefined }) {
  return { port: env.PORT, host: env.HOST, apiKeys: env.API_KEYS && env.API_KEYS.length > 0 ? env.API_KEYS : undefined };
}
