/**
 * `API_KEYS`: the keys an HTTP service accepts, each with the scopes it may use. The variable is a
 * comma-separated list of entries; an entry is a key, optionally followed by `:` and its scopes
 * joined by `+`:
 *
 *   API_KEYS="k1,k2:read,k3:run,k4:read+admin"
 *
 * - `read`: runs, batches, events, pipeline listings, Bull Board's pages; the MCP tools that read.
 * - `run`: start and cancel runs and batches; the MCP tools that run or write (AceFlow, Supervisor).
 * - `admin`: register pipelines; Bull Board's writes (retry, clean, pause, obliterate…).
 *
 * Every scope implies `read` (a key that starts a run may follow it; one that cleans a queue may
 * look at it); `admin` does not imply `run`. A key without scopes (`k1`) has all three, as every
 * key had before scopes existed. A key cannot contain `,`, `:`, `+` or whitespace.
 */
import { z } from 'zod';

/** What a key may do; see the module's comment. */
export const SCOPES = ['read', 'run', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** One key of API_KEYS and its scopes, with the implied `read` included. */
export interface ApiKeyEntry {
  key: string;
  scopes: readonly Scope[];
}

const isScope = (word: string): word is Scope => (SCOPES as readonly string[]).includes(word);

/** The scopes a key holds once `read` is added to any: in SCOPES order, each once. */
export function withImpliedScopes(scopes: readonly Scope[]): Scope[] {
  const held = new Set<Scope>(scopes.length > 0 ? ['read', ...scopes] : SCOPES);
  return SCOPES.filter((scope) => held.has(scope));
}

const KEY = /^[^\s,:+]+$/;

/** Parses one entry; a problem is answered as a sentence naming the entry by its place, never its key. */
export function parseApiKeyEntry(entry: string, place: number): ApiKeyEntry | string {
  const colon = entry.indexOf(':');
  const key = colon === -1 ? entry : entry.slice(0, colon);
  const label = `entry ${place}`;
  if (!KEY.test(key)) return `${label}: a key is one or more characters other than whitespace , : +`;
  if (colon === -1) return { key, scopes: withImpliedScopes([]) };
  const words = entry.slice(colon + 1).split('+');
  const unknown = words.filter((word) => !isScope(word));
  if (unknown.length > 0) return `${label} (scopes "${entry.slice(colon + 1)}"): unknown scope "${unknown[0] ?? ''}"; scopes are ${SCOPES.join(', ')}, joined by +`;
  return { key, scopes: withImpliedScopes(words as Scope[]) };
}

/**
 * The API_KEYS variable: entries as above, blank ones skipped. A bad entry, or a key given twice,
 * fails the parse with one message naming the entry by its place (the key is never repeated).
 */
export const apiKeyList = z.string().transform((value, ctx): ApiKeyEntry[] => {
  const entries: ApiKeyEntry[] = [];
  const refuse = (message: string) => {
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  };
  for (const [index, text] of value.split(',').map((item) => item.trim()).entries()) {
    if (!text) continue;
    const parsed = parseApiKeyEntry(text, index + 1);
    if (typeof parsed === 'string') return refuse(parsed);
    if (entries.some((entry) => entry.key === parsed.key)) return refuse(`entry ${index + 1} repeats the key of an earlier entry`);
    entries.push(parsed);
  }
  return entries;
});

/** Whether a key holding `held` may do what needs `needed`. */
export function allows(held: Iterable<Scope>, needed: Scope): boolean {
  for (const scope of held) if (scope === needed) return true;
  return false;
}
