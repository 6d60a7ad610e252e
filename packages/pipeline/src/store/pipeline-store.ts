/**
 * Registered pipeline definitions in Redis: a hash per pipeline holding each version (immutable
 * once written), the latest version's number and the highest ever given, and a sorted set of
 * names for listing (layout and scripts: store-scripts.ts). Every process reads definitions from
 * here and keeps each version compiled, since it never changes.
 *
 * Deleting a version (or a pipeline) takes it from listings and from new runs at once; a run
 * that had started on it goes on, since the version is kept aside for its workers for the run
 * retention after the deletion (`pinned`). Versions are never reused.
 */
import type { Redis } from 'ioredis';
import { keyspace } from '@switchyard/redis';
import { compilePipeline, type CompiledPipeline, type StoredPipeline } from '../definition/compile.js';
import { MAX_LIVE_VERSIONS, MAX_PIPELINES, MAX_VERSION } from '../definition/limits.js';
import { DefinitionError, type DefinitionProblem } from '../definition/problems.js';
import { DELETE_PIPELINE_SCRIPT, DELETE_VERSION_SCRIPT, REGISTER_SCRIPT } from './store-scripts.js';

export interface PipelineSummary {
  name: string;
  latest: number;
  description: string;
  registered_at: string;
}

export type RegisterOutcome = { outcome: 'created' | 'unchanged'; version: number } | { outcome: 'conflict'; code: 'version_conflict' | 'version_limit' | 'pipeline_limit'; version: number; reason: string };

/** A stored version that no longer compiles (stored before a check it fails): it can be deleted, not run. */
export class UnusablePipelineError extends Error {
  override name = 'UnusablePipelineError';
  readonly pipeline: string;
  readonly version: number;
  readonly problems: readonly DefinitionProblem[];
  constructor(options: { pipeline: string; version: number; problems: readonly DefinitionProblem[] }) {
    super(`version ${options.version} of pipeline ${options.pipeline} was stored before checks it fails (${options.problems.map((p) => `${p.path}: ${p.message}`).join('; ').slice(0, 500)}): delete it, or register a new version`);
    this.pipeline = options.pipeline;
    this.version = options.version;
    this.problems = options.problems;
  }
}

/** A version as the store writes it (digits, 1 to MAX_VERSION), or undefined. */
export function parseVersion(text: string | null | undefined): number | undefined {
  if (!text || !/^[1-9][0-9]{0,9}$/.test(text)) return undefined;
  const version = Number(text);
  return version <= MAX_VERSION ? version : undefined;
}

const canonical = (stored: StoredPipeline) => JSON.stringify({ ...stored.definition, version: undefined });

/** Whether two stored definitions say the same, whatever their versions. */
export const sameDefinition = (a: StoredPipeline, b: StoredPipeline) => canonical(a) === canonical(b);

function parseStored(json: string | null | undefined): StoredPipeline | null {
  if (!json) return null;
  try {
    return JSON.parse(json) as StoredPipeline;
  } catch {
    return null;
  }
}

export interface PipelineStoreOptions {
  redis: Redis;
  prefix: string;
  /** How long a deleted version is kept for the runs that had started on it, in seconds (default 7 days: the run retention's default). */
  keepDeletedSeconds?: number;
}

export class PipelineStore {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #keepDeletedSeconds: number;
  readonly #compiled = new Map<string, CompiledPipeline>();
  /** Name → the version this process last read as the latest (latestKnown). */
  readonly #latest = new Map<string, number>();
  /** Published when a pipeline version is registered or deleted (the name as message), e.g. for MCP's tools/list_changed. */
  readonly changedChannel: string;

  constructor(options: PipelineStoreOptions) {
    this.#redis = options.redis;
    // The definitions and their index are one script's keys: both in the shared slot.
    this.#prefix = keyspace(options.prefix).shared;
    this.#keepDeletedSeconds = options.keepDeletedSeconds ?? 7 * 24 * 3600;
    this.changedChannel = `${this.#prefix}:pipelines:changed`;
  }

  #key(name: string): string {
    return `${this.#prefix}:pipeline:${name}`;
  }

  #goneKey(name: string): string {
    return `${this.#prefix}:pipeline:${name}:gone`;
  }

  get #names(): string {
    return `${this.#prefix}:pipelines`;
  }

  /** The latest version that exists, or 0. A `latest` field that is no version (an older store's) is passed over for the versions there are. */
  async latestVersion(name: string): Promise<number> {
    const latest = parseVersion(await this.#redis.hget(this.#key(name), 'latest'));
    if (latest !== undefined) return latest;
    return (await this.#versionNumbers(name)).at(-1) ?? 0;
  }

  /** The highest version this pipeline has had, deleted ones included (0 for none): the next is above it. */
  async topVersion(name: string): Promise<number> {
    const [top, latest] = await this.#redis.hmget(this.#key(name), 'top', 'latest');
    return Math.max(parseVersion(top) ?? 0, parseVersion(latest) ?? 0, (await this.#versionNumbers(name)).at(-1) ?? 0);
  }

  async #versionNumbers(name: string): Promise<number[]> {
    const fields = await this.#redis.hkeys(this.#key(name));
    return fields
      .filter((field) => field.startsWith('v:'))
      .map((field) => parseVersion(field.slice(2)))
      .filter((v): v is number => v !== undefined)
      .sort((a, b) => a - b);
  }

  /** Writes a validated definition under its version (see REGISTER_SCRIPT); `shipped` is exempt from the counts. */
  async register(stored: StoredPipeline, options: { shipped?: boolean } = {}): Promise<RegisterOutcome> {
    const { name, version } = stored.definition;
    const summary = JSON.stringify({ description: stored.definition.description, registered_at: stored.registered_at });
    const reply = (await this.#redis.eval(REGISTER_SCRIPT, 2, this.#key(name), this.#names, String(version), JSON.stringify(stored), canonical(stored), String(Date.now()), name, String(MAX_LIVE_VERSIONS), String(MAX_PIPELINES), options.shipped ? 'shipped' : '', summary)) as string[];
    const [outcome, second, reason] = reply;
    if (outcome === 'conflict') return { outcome, code: second as 'version_conflict' | 'version_limit' | 'pipeline_limit', version, reason: reason ?? 'conflict' };
    if (outcome === 'created') await this.#redis.publish(this.changedChannel, name);
    return { outcome: outcome as 'created' | 'unchanged', version: Number(second) };
  }

  /**
   * For definitions shipped with the code: the version already holding this definition, or the
   * definition registered as the next version when the shipped one changed.
   */
  async registerShipped(stored: StoredPipeline): Promise<number> {
    const name = stored.definition.name;
    const same = (await this.versions(name)).find((v) => canonical(v) === canonical(stored));
    if (same) return same.definition.version;
    const version = Math.max(stored.definition.version, (await this.topVersion(name)) + 1);
    const outcome = await this.register({ ...stored, definition: { ...stored.definition, version } }, { shipped: true });
    if (outcome.outcome === 'conflict') throw new Error(`could not register the shipped pipeline ${name}: ${outcome.reason}`);
    return outcome.version;
  }

  /** A version that exists (the latest by default), or null. */
  async get(name: string, version?: number): Promise<StoredPipeline | null> {
    const v = version ?? (await this.latestVersion(name));
    if (!v) return null;
    return parseStored(await this.#redis.hget(this.#key(name), `v:${v}`));
  }

  /** Every version that exists, oldest first; fields that are no version as the store writes them are left out. */
  async versions(name: string): Promise<StoredPipeline[]> {
    const numbers = await this.#versionNumbers(name);
    if (numbers.length === 0) return [];
    const values = await this.#redis.hmget(this.#key(name), ...numbers.map((v) => `v:${v}`));
    return values.map(parseStored).filter((s): s is StoredPipeline => s !== null);
  }

  /** A version compiled before in this process, at once (a step job's lookup needs no promise); else undefined. */
  compiledNow(name: string, version: number): CompiledPipeline | undefined {
    return this.#compiled.get(`${name}@${version}`);
  }

  #compile(stored: StoredPipeline): CompiledPipeline {
    const { name, version } = stored.definition;
    const cached = this.#compiled.get(`${name}@${version}`);
    if (cached) return cached;
    let compiled: CompiledPipeline;
    try {
      compiled = compilePipeline(stored);
    } catch (error) {
      if (error instanceof DefinitionError) throw new UnusablePipelineError({ pipeline: name, version, problems: error.problems });
      throw error;
    }
    this.#compiled.set(`${name}@${version}`, compiled);
    return compiled;
  }

  /**
   * A version for a new run, compiled: the latest, or the given one, if it exists (a deleted one
   * does not, though this process may have compiled it). Throws UnusablePipelineError for a
   * stored version that no longer compiles.
   */
  async compiled(name: string, version?: number): Promise<CompiledPipeline | null> {
    const v = version ?? (await this.latestVersion(name));
    if (!v) return null;
    const cached = this.#compiled.get(`${name}@${v}`);
    if (cached) return version === undefined || (await this.#redis.hexists(this.#key(name), `v:${v}`)) ? this.#known(cached, version) : null;
    const stored = await this.get(name, v);
    return stored ? this.#known(this.#compile(stored), version) : null;
  }

  /** `compiled`, noted as its pipeline's latest when it was read as the latest (no `version` asked). */
  #known(compiled: CompiledPipeline, version: number | undefined): CompiledPipeline {
    if (version === undefined) this.#latest.set(compiled.name, compiled.version);
    return compiled;
  }

  /**
   * The latest version of `name` as this process last read it, compiled (undefined before it has
   * read one): for a start that reads `latestField` again in a round trip it makes anyway, since
   * another process may have registered or deleted a version since.
   */
  latestKnown(name: string): CompiledPipeline | undefined {
    const version = this.#latest.get(name);
    return version === undefined ? undefined : this.#compiled.get(`${name}@${version}`);
  }

  /** Where the latest version's number is: a field of the pipeline's hash, on the shared slot. */
  latestField(name: string): { key: string; field: string } {
    return { key: this.#key(name), field: 'latest' };
  }

  /** The version a run pinned, compiled: it exists, or it was deleted after the run started and is kept for it. */
  async pinned(name: string, version: number): Promise<CompiledPipeline | null> {
    const cached = this.#compiled.get(`${name}@${version}`);
    if (cached) return cached;
    // Sent together, so one round trip; a failed read fails the call rather than passing for a
    // version no longer kept (the runs on it would fail).
    const [live, gone] = await Promise.all([this.#redis.hget(this.#key(name), `v:${version}`), this.#redis.hget(this.#goneKey(name), String(version))]);
    const stored = parseStored(live ?? gone);
    return stored ? this.#compile(stored) : null;
  }

  /** Deletes one version (see DELETE_VERSION_SCRIPT); answers the latest left (0 for none), or null when there was no such version. */
  async deleteVersion(name: string, version: number): Promise<{ latest: number } | null> {
    const [outcome, latest] = (await this.#redis.eval(DELETE_VERSION_SCRIPT, 3, this.#key(name), this.#names, this.#goneKey(name), String(version), String(this.#keepDeletedSeconds), name)) as string[];
    if (outcome !== 'deleted') return null;
    await this.#redis.publish(this.changedChannel, name);
    return { latest: parseVersion(latest) ?? 0 };
  }

  /** Deletes every version (see DELETE_PIPELINE_SCRIPT); answers the versions deleted, or null when there was no such pipeline. */
  async deletePipeline(name: string): Promise<{ versions: number[] } | null> {
    const [outcome, ...versions] = (await this.#redis.eval(DELETE_PIPELINE_SCRIPT, 3, this.#key(name), this.#names, this.#goneKey(name), String(this.#keepDeletedSeconds), name)) as string[];
    if (outcome !== 'deleted') return null;
    await this.#redis.publish(this.changedChannel, name);
    return { versions: versions.map((v) => Number(v)).sort((a, b) => a - b) };
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
    const version = await this.latestVersion(name);
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
