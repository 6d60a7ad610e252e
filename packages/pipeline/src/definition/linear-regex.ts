/**
 * Regular expressions that run in time linear in their input, through RE2's semantics (the
 * pure-JavaScript `re2js`): a pattern a user writes (an input schema's `pattern`, a JSONata
 * regex) can then not backtrack for seconds on a short string. RE2 refuses what it cannot run in
 * linear time (backreferences, lookaround); the constructor says so with a SyntaxError.
 *
 * The class is RegExp-like for the callers that take an engine: ajv (`code.regExp`, which only
 * calls `test`) and JSONata (`RegexEngine`, constructed from a RegExp, then `lastIndex` set and
 * `exec` called repeatedly with the g flag).
 */
import { RE2JS } from 're2js';

const FLAG_BITS: Readonly<Record<string, number>> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL };
/** `g` and `y` are how `exec` moves on; `u` is RE2's own semantics already (it reads code points). */
const KNOWN_FLAGS = new Set(['i', 'm', 's', 'g', 'y', 'u']);

/** RE2's refusal in words a pattern's author can act on. */
function unsupported(source: string, error: unknown): SyntaxError {
  const detail = error instanceof Error ? error.message : String(error);
  let what = detail;
  if (/\(\?<?[=!]/.test(source)) what = 'lookahead and lookbehind ((?=, (?!, (?<=, (?<!) are not supported';
  else if (/\\[1-9]|\\k</.test(source)) what = 'backreferences (\\1, \\k<name>) are not supported';
  return new SyntaxError(`Invalid regular expression /${source}/: ${what} (patterns run with RE2 semantics, in linear time; RE2 said: ${detail})`);
}

function checkedFlags(flags: string): string {
  for (const flag of flags) {
    if (!KNOWN_FLAGS.has(flag)) throw new SyntaxError(`Invalid regular expression flag '${flag}': supported are i, m, s, g, y and u (patterns run with RE2 semantics)`);
  }
  if (new Set(flags).size !== flags.length) throw new SyntaxError(`Invalid regular expression flags '${flags}': a flag is repeated`);
  return flags;
}

export class LinearRegExp {
  readonly source: string;
  readonly flags: string;
  readonly global: boolean;
  readonly sticky: boolean;
  readonly ignoreCase: boolean;
  readonly multiline: boolean;
  readonly dotAll: boolean;
  readonly unicode: boolean;
  /** Where `exec` and `test` start when the expression is global or sticky, as RegExp's. */
  lastIndex = 0;
  readonly #compiled: RE2JS;

  /** @throws SyntaxError when the pattern or a flag is not one RE2 can run */
  constructor(source: string | RegExp | LinearRegExp, flags?: string) {
    const pattern = typeof source === 'string' ? source : source.source;
    this.flags = checkedFlags(flags ?? (typeof source === 'string' ? '' : source.flags));
    this.source = pattern;
    this.global = this.flags.includes('g');
    this.sticky = this.flags.includes('y');
    this.ignoreCase = this.flags.includes('i');
    this.multiline = this.flags.includes('m');
    this.dotAll = this.flags.includes('s');
    this.unicode = this.flags.includes('u');
    let bits = 0;
    for (const flag of this.flags) bits |= FLAG_BITS[flag] ?? 0;
    try {
      this.#compiled = RE2JS.compile(RE2JS.translateRegExp(pattern), bits);
    } catch (error) {
      throw unsupported(pattern, error);
    }
  }

  /** RE2's approximate cost of the pattern (its program's size): bounded at registration. */
  get programSize(): number {
    return this.#compiled.programSize();
  }

  /** The first match from `lastIndex` (global or sticky) or from the start, as RegExp.prototype.exec answers it. */
  exec(input: string): RegExpExecArray | null {
    const text = String(input);
    const moves = this.global || this.sticky;
    const from = moves ? this.lastIndex : 0;
    if (from > text.length) {
      this.lastIndex = 0;
      return null;
    }
    const matcher = this.#compiled.matcher(text);
    const found = matcher.find(from) && (!this.sticky || matcher.start() === from);
    if (!found) {
      if (moves) this.lastIndex = 0;
      return null;
    }
    const groups: (string | undefined)[] = [];
    for (let group = 0; group <= matcher.groupCount(); group += 1) groups.push(matcher.group(group) ?? undefined);
    const match = Object.assign(groups, { index: matcher.start(), input: text, groups: undefined as Record<string, string> | undefined }) as RegExpExecArray;
    const named = Object.entries(this.#compiled.namedGroups());
    if (named.length > 0) {
      const byName: Record<string, string> = Object.create(null) as Record<string, string>;
      for (const [name, group] of named) byName[name] = groups[group] as string;
      match.groups = byName;
    }
    if (moves) this.lastIndex = matcher.end();
    return match;
  }

  test(input: string): boolean {
    if (!this.global && !this.sticky) return this.#compiled.test(String(input));
    return this.exec(input) !== null;
  }

  toString(): string {
    return `/${this.source}/${this.flags}`;
  }
}

/**
 * ajv's `code.regExp`: every `pattern` and `patternProperties` key of a schema compiled with it
 * runs through LinearRegExp (ajv passes `u` as the flags).
 */
export const linearRegExpEngine = Object.assign((pattern: string, flags: string) => new LinearRegExp(pattern, flags), { code: 'LinearRegExp' });
