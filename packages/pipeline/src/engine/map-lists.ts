/**
 * A map step's list: evaluated when the run is created if it reads no step output (its branches
 * are then known from the start), else when the map step's job runs; bounded in count, in bytes per
 * item and in bytes in all (see limits.ts), and stored once per run, never copied into each
 * branch's job. A constant list (it reads neither input nor run id) is the definition's own: it is
 * evaluated once per version in each process, and a branch takes its item from there.
 */
import type { CompiledStep } from '../definition/compile.js';
import { jsonBytesWithin, RunLimitError, type RunLimits } from '../store/limits.js';
import { branchKeys } from './step-jobs.js';

const constantLists = new WeakMap<CompiledStep, Promise<unknown>>();

/** Whether a map's list is the same for every run of its version: it reads no input, run id or step. */
export function isConstantMap(step: CompiledStep): boolean {
  const map = step.map;
  return map !== undefined && !map.names('input') && !map.names('run_id') && !map.names('steps') && step.when === undefined;
}

/** A map step's list when it reads no step output (null otherwise, or when it cannot be had). */
export function listAtStart(step: CompiledStep, input: unknown, runId: string): Promise<unknown> | null {
  const map = step.map;
  if (!map || map.names('steps') || step.when) return null;
  // A list of constants is evaluated once per definition version.
  const constant = isConstantMap(step);
  let list = constant ? constantLists.get(step) : undefined;
  if (!list) {
    list = map.evaluate({ input, steps: {}, run_id: runId }).catch(() => null);
    if (constant) constantLists.set(step, list);
  }
  return list;
}

/** The definition's own list of a constant map (see isConstantMap), evaluated once per version; null when it has none. */
export function constantListOf(step: CompiledStep): Promise<unknown> | null {
  return isConstantMap(step) ? listAtStart(step, null, '') : null;
}

const keysOfList = new WeakMap<unknown[], string[]>();
/** The branch keys of a constant list (the same list object for every run of a version): made once. */
export function keysOf(list: unknown[]): string[] {
  let keys = keysOfList.get(list);
  if (!keys) keysOfList.set(list, (keys = branchKeys(list)));
  return keys;
}

/**
 * Throws a RunLimitError unless the list is within the limits: `map_too_large` for too many items
 * or too many bytes in all, `map_item_too_large` for one item. Each item is measured, never
 * written out, so a list whose items are all one large object costs no more than the limit to refuse.
 */
export function checkMapList(step: string, items: readonly unknown[], limits: RunLimits): void {
  if (items.length > limits.mapItems) throw new RunLimitError({ code: 'map_too_large', limit: 'mapItems', limitValue: limits.mapItems, count: items.length, message: `steps.${step}.map gave ${items.length} items; a map step takes at most ${limits.mapItems}` });
  let left = limits.mapListBytes;
  items.forEach((item, index) => {
    const size = jsonBytesWithin(item, Math.min(limits.mapItemBytes, left));
    if (size !== undefined) {
      left -= size;
      return;
    }
    if (jsonBytesWithin(item, limits.mapItemBytes) === undefined) throw new RunLimitError({ code: 'map_item_too_large', limit: 'mapItemBytes', limitValue: limits.mapItemBytes, path: `steps.${step}.map[${index}]`, message: `steps.${step}.map gave an item (index ${index}) larger than ${limits.mapItemBytes} bytes as JSON, the most a map item may be` });
    throw new RunLimitError({ code: 'map_too_large', limit: 'mapListBytes', limitValue: limits.mapListBytes, path: `steps.${step}.map[${index}]`, message: `steps.${step}.map gave a list larger than ${limits.mapListBytes} bytes as JSON (passed at index ${index}), the most a map's list may be` });
  });
}

/** The list's items as the JSON texts the run stores, once checked (see checkMapList). */
export function mapItemTexts(step: string, items: readonly unknown[], limits: RunLimits): string[] {
  checkMapList(step, items, limits);
  return items.map((item) => JSON.stringify(item) ?? 'null');
}

const verdicts = new WeakMap<unknown[], boolean>();
/**
 * Whether a list known at the start gives branches: not empty and within the limits. One that is
 * not is left to the map step's own job, which fails with the limit's error. A constant list's
 * verdict is kept with it.
 */
export function usableList(items: unknown, limits: RunLimits): items is unknown[] {
  if (!Array.isArray(items) || items.length === 0) return false;
  let verdict = verdicts.get(items);
  if (verdict === undefined) {
    try {
      checkMapList('', items, limits);
      verdict = true;
    } catch (error) {
      if (!(error instanceof RunLimitError)) throw error;
      verdict = false;
    }
    verdicts.set(items, verdict);
  }
  return verdict;
}
