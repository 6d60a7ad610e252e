/**
 * Ranking modules for smart_search. A match on the name beats one on the description, in tiers:
 * exact name, then prefix, then substring, then description; within a tier the closer match (the
 * query covering more of the name) ranks first, and ties go by hierarchical name.
 */
import type { Module, ModuleType, SearchResult } from './module.js';

export interface SearchCriteria {
  query?: string | undefined;
  type?: ModuleType | undefined;
  /** Only direct children of this module. */
  parent?: string | undefined;
  file?: string | undefined;
  offset?: number | undefined;
  limit?: number | undefined;
}

export interface SearchPage {
  results: SearchResult[];
  total: number;
  offset: number;
  limit: number;
}

const TIER = { exact: 1, prefix: 0.75, substring: 0.5, description: 0.25 } as const;
const round = (n: number) => Math.round(n * 1000) / 1000;

/** The relevance of `module` to a lower-cased query, 0 when it does not match at all. */
export function relevance(module: Module, query: string): number {
  const name = module.name.toLowerCase();
  const path = module.hierarchical_name.toLowerCase();
  if (name === query || path === query) return TIER.exact;
  const closeness = (target: string) => (0.2 * query.length) / Math.max(target.length, query.length);
  if (name.startsWith(query)) return round(TIER.prefix + closeness(name));
  if (path.startsWith(query)) return round(TIER.prefix + closeness(path) / 2);
  if (name.includes(query)) return round(TIER.substring + closeness(name));
  if (path.includes(query)) return round(TIER.substring + closeness(path) / 2);
  const words = query.split(/\s+/).filter(Boolean);
  const description = module.description.toLowerCase();
  const found = words.filter((w) => description.includes(w)).length;
  return found === 0 ? 0 : round(TIER.description + (0.2 * found) / words.length);
}

function passesFilters(module: Module, criteria: SearchCriteria): boolean {
  return (!criteria.type || module.type === criteria.type) && (!criteria.parent || module.parent === criteria.parent) && (!criteria.file || module.file === criteria.file);
}

export function searchModules(modules: readonly Module[], criteria: SearchCriteria): SearchPage {
  const query = criteria.query?.trim().toLowerCase() ?? '';
  const offset = criteria.offset ?? 0;
  const limit = criteria.limit ?? 20;
  const scored: SearchResult[] = [];
  for (const module of modules) {
    if (!passesFilters(module, criteria)) continue;
    const score = query ? relevance(module, query) : 1;
    if (score > 0) scored.push({ module, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.module.hierarchical_name < b.module.hierarchical_name ? -1 : 1));
  return { results: scored.slice(offset, offset + limit), total: scored.length, offset, limit };
}
