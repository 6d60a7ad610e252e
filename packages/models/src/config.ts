/**
 * Which models an agent step may name. `default` comes from `LLM_BASE_URL` / `LLM_API_KEY` /
 * `LLM_MODEL`, or, when no `LLM_BASE_URL` is set, is the reference services' offline model (so a
 * fresh machine runs agents with no model and no network). `MODELS` (JSON) names more:
 *
 *   MODELS='{"fast": {"base_url": "https://api.example.com/v1", "api_key_env": "FAST_KEY", "model": "small-1"}}'
 *
 * A key is never written into `MODELS` itself: `api_key_env` names the variable that holds it, so
 * the JSON can be logged and shared. Everything is bounded; a bad value fails start-up with a
 * {@link ModelsConfigError} naming the variable.
 */
import { z } from 'zod';

/** Bounds of the model variables. */
export const MODELS_LIMITS = {
  /** Bytes of the whole `MODELS` text. */
  jsonBytes: 16 * 1024,
  /** Models named in `MODELS`. */
  models: 32,
  /** Characters of a base URL. */
  urlChars: 2048,
  /** Characters of a model id. */
  modelIdChars: 256,
  /** Characters of an API key. */
  apiKeyChars: 4096,
  /** A model's declared requests per minute. */
  requestsPerMinute: 1_000_000,
  /** A model's declared tokens per minute. */
  tokensPerMinute: 1_000_000_000,
} as const;

/** The offline model's id: any id is accepted by it, this one says what answered. */
export const OFFLINE_MODEL = 'offline';
/** Where the reference services' offline model listens when MODEL_SERVICE_URL is not given. */
export const DEFAULT_MODEL_SERVICE_URL = 'http://127.0.0.1:8105/v1';

/** A model name as agent steps write it: lower-case letters, digits, `_` and `-`, at most 40. */
export const MODEL_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

const httpUrl = z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).max(MODELS_LIMITS.urlChars);
const modelId = z.string().min(1).max(MODELS_LIMITS.modelIdChars);

const requestsPerMinute = z.coerce.number().int().positive().max(MODELS_LIMITS.requestsPerMinute);
const tokensPerMinute = z.coerce.number().int().positive().max(MODELS_LIMITS.tokensPerMinute);
/** The wire format a model speaks: OpenAI's chat completions, or Anthropic's Messages API. */
export const MODEL_PROVIDERS = ['openai', 'anthropic'] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

/** USD per million tokens: a model's prices (`MODELS.<name>.prices`, `LLM_PRICES`). */
export const ModelPricesJson = z.strictObject({
  input: z.number().nonnegative().max(100_000),
  /** Prompt tokens read from the server's prompt cache; default: the input price. */
  cached_input: z.number().nonnegative().max(100_000).optional(),
  output: z.number().nonnegative().max(100_000),
});

const ModelEntry = z.strictObject({
  /** `openai` (default): an OpenAI-compatible base URL with `/v1`; `anthropic`: the Messages API's root (`https://api.anthropic.com`). */
  provider: z.enum(MODEL_PROVIDERS).optional(),
  base_url: httpUrl,
  api_key_env: z.string().regex(ENV_NAME, 'an environment variable name (letters, digits and _)').optional(),
  model: modelId,
  /** The provider's limit of requests per minute, shared by every worker of the deployment. */
  requests_per_minute: requestsPerMinute.optional(),
  /** The provider's limit of tokens (prompt and completion) per minute, shared likewise. */
  tokens_per_minute: tokensPerMinute.optional(),
  /** The most tokens the model writes in one reply: each turn's `max_tokens` is capped by it. */
  max_output_tokens: z.number().int().positive().max(10_000_000).optional(),
  /** USD per million input, cached-input and output tokens: turns, stages, runs and batches are costed by them. */
  prices: ModelPricesJson.optional(),
});

/** The `MODELS` text: bounded, JSON, then name → `{ base_url, api_key_env?, model, requests_per_minute?, tokens_per_minute? }`. */
export const ModelsJson = z
  .string()
  .refine((text) => Buffer.byteLength(text, 'utf8') <= MODELS_LIMITS.jsonBytes, `MODELS is at most ${MODELS_LIMITS.jsonBytes} bytes`)
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'expected a JSON object of model name → {base_url, api_key_env?, model}' });
      return z.NEVER;
    }
  })
  .pipe(
    z
      .record(z.string().regex(MODEL_NAME, 'a model name is lower-case letters, digits, _ and - (at most 40)'), ModelEntry)
      .refine((models) => Object.keys(models).length <= MODELS_LIMITS.models, `at most ${MODELS_LIMITS.models} models`),
  );

const positiveInt = (max: number) => z.coerce.number().int().positive().max(max);

/**
 * zod shape of the model variables, to spread into a service's env schema.
 * - `LLM_BASE_URL` (default: unset, the offline model) — the `default` model's OpenAI base URL.
 * - `LLM_API_KEY` (default: unset) — its key.
 * - `LLM_MODEL` (required with `LLM_BASE_URL`) — its model id.
 * - `MODELS` (default: none) — more models, see {@link ModelsJson}.
 * - `MODEL_SERVICE_URL` (default `http://127.0.0.1:8105/v1`) — the offline model, `default` when no LLM_BASE_URL.
 * - `LLM_TIMEOUT_MS` (default 120000) — one attempt of a turn, first byte to last.
 * - `LLM_STREAM_IDLE_MS` (default 30000) — most time an attempt's stream may go without a chunk (from the request, then between chunks).
 * - `LLM_MAX_ATTEMPTS` (default 4) — attempts of a turn on 429, 5xx and connection errors.
 * - `LLM_MAX_RETRY_AFTER_MS` (default 60000) — the longest `Retry-After` honoured (longer waits fail).
 * - `LLM_MAX_CONTENT_BYTES` (default 256 KiB) — text of one reply.
 * - `LLM_MAX_TOOL_CALLS` (default 32) — tool calls in one reply.
 * - `LLM_MAX_ARGUMENT_BYTES` (default 64 KiB) — arguments text of one tool call.
 * - `LLM_REQUESTS_PER_MINUTE` (default: none) — the `default` model's request limit, shared by every worker.
 * - `LLM_TOKENS_PER_MINUTE` (default: none) — the `default` model's token limit, shared likewise.
 * - `LLM_MAX_OUTPUT_TOKENS` (default: unset, the server's own) — the `default` model's most tokens in one reply.
 * - `LLM_PRICES` (default: unset, no cost counted) — the `default` model's prices, JSON `{input, cached_input?, output}` in USD per million tokens.
 */
export const modelsEnvShape = {
  LLM_BASE_URL: httpUrl.optional(),
  LLM_API_KEY: z.string().min(1).max(MODELS_LIMITS.apiKeyChars).optional(),
  LLM_MODEL: modelId.optional(),
  MODELS: ModelsJson.optional(),
  MODEL_SERVICE_URL: httpUrl.default(DEFAULT_MODEL_SERVICE_URL),
  LLM_TIMEOUT_MS: positiveInt(3_600_000).default(120_000),
  LLM_STREAM_IDLE_MS: positiveInt(3_600_000).default(30_000),
  LLM_MAX_ATTEMPTS: positiveInt(10).default(4),
  LLM_MAX_RETRY_AFTER_MS: positiveInt(3_600_000).default(60_000),
  LLM_MAX_CONTENT_BYTES: positiveInt(16 * 1024 * 1024).default(256 * 1024),
  LLM_MAX_TOOL_CALLS: positiveInt(1024).default(32),
  LLM_MAX_ARGUMENT_BYTES: positiveInt(16 * 1024 * 1024).default(64 * 1024),
  LLM_REQUESTS_PER_MINUTE: requestsPerMinute.optional(),
  LLM_TOKENS_PER_MINUTE: tokensPerMinute.optional(),
  LLM_MAX_OUTPUT_TOKENS: positiveInt(10_000_000).optional(),
  LLM_PRICES: z
    .string()
    .max(1024)
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'expected JSON: {"input": USD per million, "cached_input"?: …, "output": …}' });
        return z.NEVER;
      }
    })
    .pipe(ModelPricesJson)
    .optional(),
};

/** One configured model, as the client calls it. */
export interface ModelConfig {
  /** The name agent steps use (`default`, or a key of `MODELS`). */
  name: string;
  /** OpenAI base URL, `/v1` included. */
  baseUrl: string;
  apiKey?: string | undefined;
  /** The model id sent in each request. */
  model: string;
  /** The provider's limits, shared by every worker (absent: none declared; a 429 still pauses the model). */
  limits?: ModelRateLimits | undefined;
  /** Its wire format; absent: `openai`. */
  provider?: ModelProvider | undefined;
  /** USD per million tokens; absent: the model's turns cost nothing that is counted. */
  prices?: ModelPrices | undefined;
  /** The model's own most output tokens (`MODELS.<name>.max_output_tokens`, `LLM_MAX_OUTPUT_TOKENS`): each turn's `max_tokens` is at most this. */
  maxOutputTokens?: number | undefined;
}

/** What a model's provider admits per minute, as declared in MODELS or LLM_*_PER_MINUTE. */
export interface ModelRateLimits {
  requestsPerMinute?: number | undefined;
  tokensPerMinute?: number | undefined;
}

/** USD per million tokens of each kind. */
export interface ModelPrices {
  input: number;
  cachedInput: number;
  output: number;
}

const pricesOf = (json: z.infer<typeof ModelPricesJson> | undefined): { prices: ModelPrices } | Record<string, never> =>
  json ? { prices: { input: json.input, cachedInput: json.cached_input ?? json.input, output: json.output } } : {};

/** Configured models by name; `default` is always there. */
export type ModelsConfig = Map<string, ModelConfig>;

/** A model variable is wrong: the message names it (never a key's value). */
export class ModelsConfigError extends Error {
  override name = 'ModelsConfigError';
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`invalid environment variable ${variable}: ${message}`);
  }
}

export interface ParseModelsConfigOptions {
  /** The whole environment (unparsed): `api_key_env` is looked up in it. Empty values count as unset. */
  env: Record<string, string | undefined>;
  /** The offline model's base URL, for `default` when LLM_BASE_URL is unset. Default: `MODEL_SERVICE_URL`. */
  fallbackBaseUrl?: string;
  /** The offline model's key (it shares the tool services' keys). Default: `TOOL_SERVICE_API_KEY`. */
  fallbackApiKey?: string;
}

const ModelsEnv = z.object(modelsEnvShape);
export type ModelsEnv = z.infer<typeof ModelsEnv>;

/** Parses the model variables of `env` into the models by name; throws {@link ModelsConfigError}. */
export function parseModelsConfig(options: ParseModelsConfigOptions): ModelsConfig {
  const env = withoutEmpty(options.env);
  const parsed = parseModelsEnv(env);
  const models: ModelsConfig = new Map();
  models.set('default', defaultModel(parsed, env, options));
  for (const [name, entry] of Object.entries(parsed.MODELS ?? {})) {
    if (name === 'default') {
      if (parsed.LLM_BASE_URL) throw new ModelsConfigError('MODELS', '"default" is set by LLM_BASE_URL / LLM_MODEL; name this model otherwise');
    }
    models.set(name, { name, baseUrl: entry.base_url, apiKey: keyFrom(env, name, entry.api_key_env), model: entry.model, ...limitsOf(entry.requests_per_minute, entry.tokens_per_minute), ...(entry.provider === undefined ? {} : { provider: entry.provider }), ...(entry.max_output_tokens === undefined ? {} : { maxOutputTokens: entry.max_output_tokens }), ...pricesOf(entry.prices) });
  }
  return models;
}

/** The model variables, parsed (throws {@link ModelsConfigError} naming the first bad one). */
export function parseModelsEnv(source: Record<string, string | undefined>): ModelsEnv {
  const parsed = ModelsEnv.safeParse(withoutEmpty(source));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path.map(String) ?? [];
  // A bad record key's own reason ("a model name is …") is one level down.
  const inner = issue?.code === 'invalid_key' ? issue.issues[0]?.message : undefined;
  throw new ModelsConfigError(path.join('.') || '(environment)', inner ?? issue?.message ?? 'invalid');
}

/**
 * The variables `MODELS` names in `api_key_env`: a launcher passes them on to the services with the
 * model variables themselves. None when MODELS is unset or invalid (the service reports that).
 */
export function modelKeyVariables(modelsText: string | undefined): string[] {
  if (!modelsText) return [];
  const parsed = ModelsJson.safeParse(modelsText);
  if (!parsed.success) return [];
  return Object.values(parsed.data).flatMap((entry) => (entry.api_key_env ? [entry.api_key_env] : []));
}

function defaultModel(parsed: ModelsEnv, env: Record<string, string | undefined>, options: ParseModelsConfigOptions): ModelConfig {
  const limits = limitsOf(parsed.LLM_REQUESTS_PER_MINUTE, parsed.LLM_TOKENS_PER_MINUTE);
  if (parsed.LLM_BASE_URL) {
    if (!parsed.LLM_MODEL) throw new ModelsConfigError('LLM_MODEL', 'required when LLM_BASE_URL is set (the model id to ask for)');
    return { name: 'default', baseUrl: parsed.LLM_BASE_URL, apiKey: parsed.LLM_API_KEY, model: parsed.LLM_MODEL, ...limits, ...(parsed.LLM_MAX_OUTPUT_TOKENS === undefined ? {} : { maxOutputTokens: parsed.LLM_MAX_OUTPUT_TOKENS }), ...pricesOf(parsed.LLM_PRICES) };
  }
  const baseUrl = options.fallbackBaseUrl ?? parsed.MODEL_SERVICE_URL;
  if (!httpUrl.safeParse(baseUrl).success) throw new ModelsConfigError('MODEL_SERVICE_URL', 'expected an http(s) URL');
  return { name: 'default', baseUrl, apiKey: options.fallbackApiKey ?? env.TOOL_SERVICE_API_KEY, model: OFFLINE_MODEL, ...limits };
}

/** `{ limits }` when either limit is declared, else nothing (so a model with none has no field). */
function limitsOf(requestsPerMinute: number | undefined, tokensPerMinute: number | undefined): { limits?: ModelRateLimits } {
  if (requestsPerMinute === undefined && tokensPerMinute === undefined) return {};
  return { limits: { ...(requestsPerMinute === undefined ? {} : { requestsPerMinute }), ...(tokensPerMinute === undefined ? {} : { tokensPerMinute }) } };
}

function keyFrom(env: Record<string, string | undefined>, name: string, variable: string | undefined): string | undefined {
  if (variable === undefined) return undefined;
  const key = env[variable];
  if (key === undefined) throw new ModelsConfigError(`MODELS.${name}.api_key_env`, `names ${variable}, which is not set`);
  if (key.length > MODELS_LIMITS.apiKeyChars) throw new ModelsConfigError(variable, `at most ${MODELS_LIMITS.apiKeyChars} characters`);
  return key;
}

function withoutEmpty(source: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value !== ''));
}
