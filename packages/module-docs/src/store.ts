/**
 * Modules in Redis, one hash per project (hierarchical name → module). A version counter per
 * project lets each process keep the project's modules in memory and reload them only after a
 * write, so a search costs one round trip and an in-memory ranking.
 */
import type { Redis } from 'ioredis';
import { keyspace } from '@switchyard/redis';
import { ancestorsOf, type Module } from './module.js';
import { searchModules, type SearchCriteria, type SearchPage } from './search.js';

/** A project's modules and its version counter, under its own Redis Cluster hash tag (one slot per project, for ADD_SCRIPT). */
export function moduleDocsKeys(prefix: string, project: string) {
  const modules = keyspace(prefix).own('modules', project);
  return { modules, version: `${modules}:version` };
}

export class ModuleStoreError extends Error {
  override name = 'ModuleStoreError';
  readonly kind: 'duplicate' | 'parent_not_found' | 'cycle';
  constructor(kind: ModuleStoreError['kind'], message: string) {
    super(message);
    this.kind = kind;
  }
}

/** Adds the module only when its parent exists and its name is free, in one step. */
const ADD_SCRIPT = `
if ARGV[2] ~= '' and redis.call('HEXISTS', KEYS[1], ARGV[2]) == 0 then return 'parent_not_found' end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[3]) == 0 then return 'duplicate' end
redis.call('INCR', KEYS[2])
return 'ok'
`;

export class ModuleStore {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #cache = new Map<string, { version: string; modules: Module[] }>();

  /** @param options.prefix key prefix, e.g. the deployment's queue prefix */
  constructor(options: { redis: Redis; prefix: string }) {
    this.#redis = options.redis;
    this.#prefix = options.prefix;
  }

  #keys(project: string) {
    return moduleDocsKeys(this.#prefix, project);
  }

  async add(project: string, module: Module): Promise<Module> {
    if (module.parent && (module.parent === module.hierarchical_name || ancestorsOf(module.parent).includes(module.hierarchical_name))) {
      throw new ModuleStoreError('cycle', `'${module.hierarchical_name}' cannot be its own ancestor`);
    }
    const keys = this.#keys(project);
    const outcome = await this.#redis.eval(ADD_SCRIPT, 2, keys.modules, keys.version, module.hierarchical_name, module.parent ?? '', JSON.stringify(module));
    if (outcome === 'parent_not_found') throw new ModuleStoreError('parent_not_found', `Parent module '${module.parent}' does not exist`);
    if (outcome === 'duplicate') throw new ModuleStoreError('duplicate', `A module named '${module.hierarchical_name}' already exists`);
    return module;
  }

  async get(project: string, hierarchicalName: string): Promise<Module | null> {
    const raw = await this.#redis.hget(this.#keys(project).modules, hierarchicalName);
    return raw ? (JSON.parse(raw) as Module) : null;
  }

  async search(project: string, criteria: SearchCriteria): Promise<SearchPage> {
    return searchModules(await this.#all(project), criteria);
  }

  async #all(project: string): Promise<Module[]> {
    const keys = this.#keys(project);
    const version = (await this.#redis.get(keys.version)) ?? '0';
    const cached = this.#cache.get(project);
    if (cached?.version === version) return cached.modules;
    const [[, hash], [, versionNow]] = (await this.#redis.multi().hgetall(keys.modules).get(keys.version).exec()) as [[null, Record<string, string>], [null, string | null]];
    const modules = Object.values(hash).map((raw) => JSON.parse(raw) as Module);
    this.#cache.set(project, { version: versionNow ?? '0', modules });
    return modules;
  }
}
