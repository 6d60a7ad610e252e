/**
 * Measures smart_search over a project of a few thousand modules on a real Redis: the same call
 * an agent makes, argument checks and the version round trip included. Used by `npm run bench`.
 */
import type { Redis } from 'ioredis';
import { ModuleStore, moduleDocsKeys } from './store.js';
import { createModuleDocsHandler } from './tools.js';
import type { Module, ModuleType } from './module.js';

const WORDS = ['parse', 'render', 'load', 'store', 'fetch', 'queue', 'token', 'cache', 'route', 'index', 'graph', 'stream', 'merge', 'score', 'clock'];
const TYPES: ModuleType[] = ['function', 'class', 'variable', 'functionGroup'];

/** A deterministic tree: files, each with classes and functions named from a small vocabulary. */
function fixtureModules(count: number): Module[] {
  const modules: Module[] = [];
  for (let f = 0; modules.length < count; f += 1) {
    const file = `file_${f}`;
    modules.push({ name: file, hierarchical_name: file, type: 'file', description: `Source file ${f}`, file: `src/${file}.ts` });
    for (let i = 0; i < 24 && modules.length < count; i += 1) {
      const word = WORDS[(f * 7 + i) % WORDS.length] ?? 'item';
      const name = `${word}_${i}`;
      modules.push({ name, hierarchical_name: `${file}.${name}`, type: TYPES[i % TYPES.length] ?? 'function', description: `Does ${word} work for part ${i} of file ${f}`, parent: file, file: `src/${file}.ts` });
    }
  }
  return modules;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** @param options.modules how many modules the project holds (default 5000) */
export async function benchModuleSearch(options: { redis: Redis; prefix: string; modules?: number; queries?: number }): Promise<{ modules: number; queries: number; p50_ms: number; p99_ms: number; max_ms: number }> {
  const store = new ModuleStore({ redis: options.redis, prefix: options.prefix });
  const project = 'bench';
  const modules = fixtureModules(options.modules ?? 5000);
  for (const module of modules) await store.add(project, module);
  const handle = createModuleDocsHandler(store);
  const queries = options.queries ?? 200;
  await handle('smart_search', { query: 'parse', project }); // the first search loads the project
  const times: number[] = [];
  for (let i = 0; i < queries; i += 1) {
    const args = { query: WORDS[i % WORDS.length] ?? 'parse', project, limit: 20, ...(i % 3 === 0 ? { type: 'function' } : {}) };
    const started = performance.now();
    await handle('smart_search', args);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const keys = moduleDocsKeys(options.prefix, project);
  await options.redis.del(keys.modules, keys.version);
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return { modules: modules.length, queries, p50_ms: round(percentile(times, 50)), p99_ms: round(percentile(times, 99)), max_ms: round(times.at(-1) ?? Number.NaN) };
}
