/**
 * Registered pipeline definitions in Redis: a hash per pipeline holding each version (immutable
 * once written) and the latest version's number, and a sorted set of names for listing. Every
 * process reads definitions from here and keeps each version compiled, since it never changes.
 */
import type { Redis } from 'ioredis';
import { keyspace } from '@switchyard/redis';
import { compilePipeline, type CompiledPipeline, type StoredPipeline } from '../definition/compile.js';

export interface PipelineSummary {
  name: string;
  latest: number;
  description: string;
  registered_at: string;
}

export type RegisterOutcome = { outcome: 'created' | 'unchanged'; version: number } | { outcome: 'conflict'; version: number; latest: number; reason: string };

/**
 * KEYS: pipeline hash, names zset. ARGV: version, stored JSON, canonical definition JSON, now (ms),
 * name, 'exact' when the version was given by the caller, the version's summary JSON (what a
 * listing shows: its description and when it was registered, `d:<version>`, so that a listing
 * never reads whole definitions). A version is written once: the same definition again is
 * `unchanged`; another definition under a taken version is a conflict, and so is a version below the latest.
 */
const REGISTER_SCRIPT = `
local version = tonumber(ARGV[1])
local latest = tonumber(redis.call('HGET', KEYS[1], 'latest') or '0')
local existing = redis.call('HGET', KEYS[1], 'c:' .. version)
if existing then
  if existing == ARGV[3] then return {'unchanged', version, latest} end
  return {'conflict', version, latest, 'version ' .. version .. ' exists with another definition; versions are immutable'}
end
if version <= latest then return {'conflict', version, latest, 'version ' .. version .. ' is below the latest, ' .. latest} end
redis.call('HSET', KEYS[1], 'v:' .. version, ARGV[2], 'c:' .. version, ARGV[3], 'd:' .. version, ARGV[7], 'latest', version)
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
return {'created', version, version}
`;

const canonical = (stored: StoredPipeline) => JSON.stringify({ ...stored.definition, version: undefined });

/** Whether two stored definitions say the same, whatever their versions. */
export const sameDefinition = (a: StoredPipeline, b: StoredPipeline) => canonical(a) === canonical(b);

export class PipelineStore {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #compiled = new Map<string, CompiledPipeline>();
  /** Published when a pipeline version is registered (the name as message), e.g. for MCP's tools/list_changed. */
  readonly changedChannel: string;

  constructor(options: { redis: Redis; prefix: string }) {
    this.#redis = options.redis;
    // The definitions and their index are one script's keys: both in the shared slot.
    this.#prefix = keyspace(options.prefix).shared;
    this.changedChannel = `${this.#prefix}:pipelines:changed`;
  }

  #key(name: string): string {
    return `${this.#prefix}:pipeline:${name}`;
  }

  get #names(): string {
    return `${this.#prefix}:pipelines`;
  }

  async latestVersion(name: string): Promise<number> {
    return Number((await this.#redis.hget(this.#key(name), 'latest')) ?? 0);
  }

  /** Writes a validated definition under its version (see REGISTER_SCRIPT). */
  async register(stored: StoredPipeline): Promise<RegisterOutcome> {
    const { name, version } = stored.definition;
    const summary = JSON.stringify({ description: stored.definition.description, registered_at: stored.registered_at });
    const reply = (await this.#redis.eval(REGISTER_SCRIPT, 2, this.#key(name), this.#names, version, JSON.stringify(stored), canonical(stored), Date.now(), name, '', summary)) as [string, number, number, string?];
    const [outcome, v, latest, reason] = reply;
    if (outcome === 'conflict') return { outcome, version: v, latest, reason: reason ?? 'conflict' };
    if (outcome === 'created') await this.#redis.publish(this.changedChannel, name);
    return { outcome: outcome as 'created' | 'unchanged', version: v };
  }

  /**
   * For definitions shipped with the code: the version already holding this definition, or the
   * definition registered as the next version when the shipped one changed.
   */
  async registerShipped(stored: StoredPipeline): Promise<number> {
    const name = stored.definition.name;
    const versions = await this.versions(name);
    const same = versions.find((v) => canonical(v) === canonical(stored));
    if (same) return same.definition.version;
    const latest = versions.at(-1)?.definition.version ?? 0;
    const version = Math.max(stored.definition.version, latest + 1);
    const outcome = await this.register({ ...stored, definition: { ...stored.definition, version } });
    if (outcome.outcome === 'conflict') throw new Error(`could not register the shipped pipeline ${name}: ${outcome.reason}`);
    return outcome.version;
  }

  async get(name: string, version?: number): Promise<StoredPipeline | null> {
    const v = version ?? (await this.latestVersion(name));
    if (!v) return null;
    const json = await this.#redis.hget(this.#key(name), `v:${v}`);
    return json ? (JSON.parse(json) as StoredPipeline) : null;
  }

  /** Every version of a pipeline, oldest first. */
  async versions(name: string): Promise<StoredPipeline[]> {
    const hash = await this.#redis.hgetall(this.#key(name));
    return Object.entries(hash)
      .filter(([field]) => field.startsWith('v:'))
      .map(([, json]) => JSON.parse(json) as StoredPipeline)
      .sort((a, b) => a.definition.version - b.definition.version);
  }

  /** A version compiled before in this process, at once (a step job's lookup needs no promise); else undefined. */
  compiledNow(name: string, version: number): CompiledPipeline | undefined {
    return this.#compiled.get(`${name}@${version}`);
  }

  /** A version compiled, from this process's cache when it has been compiled before. */
  async compiled(name: string, version?: number): Promise<CompiledPipeline | null> {
    const v = version ?? (await this.latestVersion(name));
    const cached = this.#compiled.get(`${name}@${v}`);
    if (cached) return cached;
    const stored = await this.get(name, v);
    if (!stored) return null;
    const compiled = compilePipeline(stored);
    this.#compiled.set(`${name}@${v}`, compiled);
    return compiled;
  }

  /**
   * Pipelines in the order their latest version was registered, each by that version's summary:
   * every one, or a page of them (`offset`, at most `limit`; listPage's `more` tells whether others
   * follow). A few round trips for the page, whatever the size of the definitions.
   */
  async list(page?: { offset: number; limit: number }): Promise<PipelineSummary[]> {
    return (await this.listPage(page)).pipelines;
  }

  async listPage(page?: { offset: number; limit: number }): Promise<{ pipelines: PipelineSummary[]; more: boolean }> {
    // One more than the page: whether a next page exists.
    const names = page ? await this.#redis.zrange(this.#names, page.offset, page.offset + page.limit) : await this.#redis.zrange(this.#names, 0, -1);
    const more = page !== undefined && names.length > page.limit;
    const listed = page ? names.slice(0, page.limit) : names;
    const summaries = await Promise.all(listed.map((name) => this.#summary(name)));
    return { pipelines: summaries.filter((s): s is PipelineSummary => s !== null), more };
  }

  /** A pipeline's latest version as listings show it; a version registered before summaries were kept is read whole. */
  async #summary(name: string): Promise<PipelineSummary | null> {
    const version = Number((await this.#redis.hget(this.#key(name), 'latest')) ?? 0);
    if (!version) return null;
    const kept = await this.#redis.hget(this.#key(name), `d:${version}`);
    if (kept) {
      const { description, registered_at } = JSON.parse(kept) as { description: string; registered_at: string };
      return { name, latest: version, description, registered_at };
    }
    const stored = await this.get(name, version);
    return stored ? { name, latest: version, description: stored.definition.description, registered_at: stored.registered_at } : null;
  }
}
