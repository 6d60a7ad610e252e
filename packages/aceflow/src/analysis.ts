/**
 * set_analysis merges instead of overwriting (seed 000: "分析数据增量更新，不完全覆盖"): an agent
 * can send project_info now and test_metrics later, or correct one metric, without resending
 * everything.
 */
import { LIMITS, tooLarge } from './errors.js';
import { analysisDataSchema, parseInput, type AnalysisData } from './inputs.js';

/** The categories prepare_data always hands over, present or not (seed 000's analysis_data). */
export const ANALYSIS_CATEGORIES = ['project_info', 'code_metrics', 'test_metrics'] as const;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `patch` merged into `base`: objects key by key, recursively; arrays and scalars replace. Built
 * with fromEntries so that a `__proto__` key stays a plain key instead of reaching a prototype.
 */
export function deepMerge(base: unknown, patch: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(patch)) return patch;
  const keys = new Set([...Object.keys(base), ...Object.keys(patch)]);
  return Object.fromEntries([...keys].map((key) => [key, Object.hasOwn(patch, key) ? deepMerge(base[key], patch[key]) : base[key]]));
}

/** Serialized size in bytes, or Infinity for something that cannot be JSON at all. */
export function jsonBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '');
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** Checks one set_analysis payload against the seed's size limit and data rules. */
export function parseAnalysis(data: unknown, limitBytes: number = LIMITS.analysisBytes): AnalysisData {
  const size = jsonBytes(data);
  if (size > limitBytes) throw tooLarge('data', size, limitBytes);
  return parseInput(analysisDataSchema, data, 'data') as AnalysisData;
}

/** `patch` merged into the stored analysis, category by category; refuses a result over the limit. */
export function mergeAnalysis(stored: AnalysisData, patch: AnalysisData, limitBytes: number = LIMITS.analysisBytes): AnalysisData {
  const merged = deepMerge(stored, patch) as AnalysisData;
  const size = jsonBytes(merged);
  if (size > limitBytes) throw tooLarge('analysis (stored and new data merged)', size, limitBytes);
  return merged;
}
