/**
 * The values plain-jsonata.ts computes with, as JSONata's evaluator has them: sequences (what a
 * path gives) told apart from arrays in the data, the unwrapping of a sequence, truth, lookup.
 */

/** Thrown when this evaluation must be left to JSONata. */
export const NOT_PLAIN: unique symbol = Symbol('not plain');

/**
 * Items a plain evaluation may touch (each item a path step, filter, lookup, constructor or range
 * goes over) before it is left to JSONata, in the sandbox and under its time budget. Plain code has
 * no loop of its own, but paths over lists nest and ranges make lists from nothing:
 * `[0..999].([0..99999][$ < 0])` would hold an event loop for seconds. A touch costs tens of
 * nanoseconds, so the budget holds an event loop for about ten milliseconds at most (measured: 25 ms
 * for a million).
 */
export const PLAIN_WORK_BUDGET = 500_000;
let workLeft = PLAIN_WORK_BUDGET;

/** Starts an evaluation's budget (compilePlain's entry: evaluations never interleave, they are synchronous). */
export function startWork(): void {
  workLeft = PLAIN_WORK_BUDGET;
}

/** Spends `items` of the evaluation's budget; past it, NOT_PLAIN hands the expression to the sandbox. */
export function spend(items: number): void {
  workLeft -= items;
  if (workLeft < 0) notPlain();
}

export type Node = { type: string; value?: unknown; [key: string]: unknown };
/**
 * The variables in scope: a block's own, then its enclosing ones. (Frames made with
 * Object.create would do, but V8 slows down on every fresh object used as a prototype.)
 */
export class Scope {
  // Most frames bind one name (a positional variable, a block's first): it is held in fields,
  // any further names in two short lists, made when needed (cheaper than a Map).
  #name: string | undefined;
  #value: unknown;
  #names: string[] | undefined;
  #values: unknown[] | undefined;
  constructor(
    readonly parent: Scope | null = null,
    name?: string,
    value?: unknown,
  ) {
    this.#name = name;
    this.#value = value;
  }
  get(name: string): unknown {
    if (this.#name === name) return this.#value;
    const at = this.#names ? this.#names.indexOf(name) : -1;
    return at >= 0 ? this.#values?.[at] : this.parent?.get(name);
  }
  set(name: string, value: unknown): unknown {
    if (this.#name === undefined || this.#name === name) {
      this.#name = name;
      this.#value = value;
      return value;
    }
    const at = this.#names ? this.#names.indexOf(name) : -1;
    if (at >= 0 && this.#values) this.#values[at] = value;
    else {
      (this.#names ??= []).push(name);
      (this.#values ??= []).push(value);
    }
    return value;
  }
}

/** The scope an expression starts in: nothing is bound there (only blocks bind, in their own). */
export const ROOT_SCOPE = new Scope();
export type Eval = (input: unknown, scope: Scope) => unknown;

export const notPlain = (): never => {
  throw NOT_PLAIN;
};

// JSONata tells a sequence (what a path gives) from an array in the data, and an array built
// as a path step (`a.[b, c]`) from others; so must this. A symbol on the array marks it, as
// JSONata marks its own with a property (a WeakSet of them cost more than the rest together).
const SEQUENCE = Symbol('sequence');
const CONS = Symbol('cons');
type Marked = unknown[] & { [SEQUENCE]?: true; [CONS]?: true };
export const sequence = (items: unknown[] = []): unknown[] => {
  (items as Marked)[SEQUENCE] = true;
  return items;
};
export const isSequence = (value: unknown): value is unknown[] => Array.isArray(value) && (value as Marked)[SEQUENCE] === true;
export const markCons = (items: unknown[]): void => {
  (items as Marked)[CONS] = true;
};
export const isCons = (value: unknown[]): boolean => (value as Marked)[CONS] === true;

/** What JSONata's evaluate() does with every node's result: an empty sequence is nothing, a single one its item. */
export function unwrap(value: unknown): unknown {
  if (!isSequence(value)) return value;
  if (value.length === 0) return undefined;
  return value.length === 1 ? value[0] : value;
}

export function isNumeric(value: unknown): value is number {
  if (typeof value !== 'number' || Number.isNaN(value)) return false;
  return Number.isFinite(value) || notPlain(); // JSONata raises an error on infinity
}

/** JSONata's $boolean: undefined stays undefined. */
export function truth(value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.length === 1 ? truth(value[0]) : value.some((v) => truth(v));
  if (typeof value === 'string') return value.length > 0;
  if (typeof value === 'number') return isNumeric(value) && value !== 0;
  if (typeof value === 'boolean') return value;
  if (value !== null && typeof value === 'object') return Object.keys(value).length > 0;
  return typeof value === 'function' ? notPlain() : false;
}

export function lookup(input: unknown, key: string): unknown {
  if (Array.isArray(input)) {
    spend(input.length);
    const found = sequence();
    for (const item of input) {
      const value = lookup(item, key);
      if (Array.isArray(value)) for (const inner of value as unknown[]) found.push(inner);
      else if (value !== undefined) found.push(value);
    }
    return found;
  }
  if (input !== null && typeof input === 'object' && Object.hasOwn(input, key)) return (input as Record<string, unknown>)[key];
  return undefined;
}

