/**
 * The byte budget of a listing page: items are taken in order while their JSON fits in it (the
 * first always is, so a page always moves on), and the page says where the next one starts.
 */
import type { PageMarks } from '@switchyard/contracts';
import { rawJsonBytes } from './raw-json.js';

/**
 * The items of a page that fit in `budget` bytes as JSON, and its marks.
 * @param options.more whether items follow the ones given (the caller read one more than the page)
 */
export function withinBudget<T>(items: readonly T[], options: { budget: number; offset: number; more: boolean }): { items: T[] } & PageMarks {
  const taken: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = rawJsonBytes(item) + 1;
    if (taken.length > 0 && bytes + size > options.budget) return { items: taken, next_offset: options.offset + taken.length, truncated: true };
    bytes += size;
    taken.push(item);
  }
  return { items: taken, next_offset: options.more ? options.offset + taken.length : null, truncated: false };
}
