/**
 * What the command prints: tables for people, JSON for scripts (`--json`), and a run's result
 * as text.
 */
import type { Output } from './follow/progress-board.js';

/** Where a command writes: stdout for what it answers, stderr for progress and notes. */
export interface Streams {
  out: Output;
  err: Output;
}

export function printJson(streams: Streams, value: unknown): void {
  streams.out.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Columns padded to their widest cell; the last column is not padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** `2025-01-02T03:04:05.678Z` → `2025-01-02 03:04:05`. */
/** Dollars to the hundredth of a cent, or to six places below a cent (an agent turn may cost $0.000150). */
export const usd = (value: number) => `$${value >= 0.01 || value === 0 ? value.toFixed(4) : value.toFixed(6)}`;

export const shortTime = (iso: string | null | undefined) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '') : '');

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const heading = (key: string) => key.replace(/[_-]+/g, ' ').replace(/^./, (c) => c.toUpperCase());
const isProse = (text: string) => text.length > 60 || text.includes('\n');

/**
 * A result as text a person reads: a `title` as a heading, text fields as paragraphs under theirs,
 * short values as `name: value` lines, lists of objects one after another (each under its `name`
 * or `title`). A story gives its title and content; any other shape reads top to bottom.
 */
export function resultText(result: unknown, level = 1): string {
  if (typeof result === 'string') return result.trim();
  if (Array.isArray(result)) return result.map((item) => resultText(item, level)).filter(Boolean).join('\n\n');
  if (!isObject(result)) return result === null || result === undefined ? '' : String(result);
  if (level > 6) return JSON.stringify(result);
  const parts: string[] = [];
  const facts: string[] = [];
  const title = typeof result.title === 'string' ? result.title : typeof result.name === 'string' ? result.name : undefined;
  if (title !== undefined) parts.push(`${'#'.repeat(level)} ${title}`);
  // A story's content is its text; the rest of a story (research, outline) is how it was made.
  if (typeof result.content === 'string') return [...parts, result.content.trim()].join('\n\n');
  const entries = Object.entries(result).filter(([key, value]) => !((key === 'title' || key === 'name') && value === title));
  // A named thing with one text (a section and its review) needs no heading for that text.
  const lone = level > 1 && title !== undefined && entries.filter(([, value]) => typeof value === 'string' && isProse(value)).length === 1;
  for (const [key, value] of entries) {
    if (typeof value === 'string' && isProse(value)) parts.push(lone ? value.trim() : `${'#'.repeat(level + 1)} ${heading(key)}\n\n${value.trim()}`);
    else if (Array.isArray(value) && value.some((item) => isObject(item) || (typeof item === 'string' && isProse(item)))) parts.push(`${'#'.repeat(level + 1)} ${heading(key)}\n\n${resultText(value, level + 2)}`);
    else if (isObject(value)) parts.push(`${'#'.repeat(level + 1)} ${heading(key)}\n\n${resultText(value, level + 2)}`);
    else facts.push(`${key}: ${Array.isArray(value) ? value.join(', ') : String(value)}`);
  }
  if (facts.length > 0) parts.push(facts.join('\n'));
  return parts.join('\n\n');
}
