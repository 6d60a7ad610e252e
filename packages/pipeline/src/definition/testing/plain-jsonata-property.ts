/**
 * The property that holds plain-jsonata.ts to JSONata: on a generated expression and a generated
 * context, the compiled expression gives what JSONata gives (as JSON keeps it), or an error
 * where JSONata gives one, or leaves the evaluation to JSONata (NOT_PLAIN). Run by
 * plain-jsonata-property.test.ts with a fixed seed, and by `npm run chaos -- plain-jsonata`
 * with a random one and many more cases.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import jsonata from 'jsonata';
import { compilePlain, NOT_PLAIN, type PlainExpression } from '../plain-jsonata.js';
import { LinearRegExp } from '../linear-regex.js';
import { DEFAULT_EXPRESSION_BUDGET } from '../sandbox/budget.js';
import { contextArbitrary } from './json-contexts.js';
import { expressionArbitrary } from './jsonata-grammar.js';
import { render } from './jsonata-source.js';

/** What became of one generated expression on one context. */
export type Outcome = 'compared' | 'notPlain' | 'leftToJsonata' | 'unparsed';
export type OutcomeCounts = Record<Outcome, number>;

/** The compiled expression gave other than JSONata: the case, and both answers. */
export class PlainMismatchError extends Error {
  override name = 'PlainMismatchError';
  constructor(source: string, context: unknown, plain: string, reference: string) {
    super(`plain-jsonata gave ${plain} where JSONata gave ${reference}\n  expression: ${source}\n  context: ${JSON.stringify(context)}`);
  }
}

/** A value as a run stores it (JSON), undefined told apart. */
function stored(value: unknown): unknown {
  const json = value === undefined ? undefined : JSON.stringify(value);
  return json === undefined ? undefined : JSON.parse(json);
}

const shown = (answer: Answer) => ('error' in answer ? `error ${answer.error}` : answer.value === undefined ? 'undefined' : JSON.stringify(answer.value));
type Answer = { value: unknown } | { error: string };

const errorText = (error: unknown) => (error && typeof error === 'object' && 'code' in error ? String((error as { code: unknown }).code) : error instanceof Error ? error.message : String(error));

/** JSONata's answer as the expression sandbox gets it: its regex engine and guardrails (no time limit: a slow machine must not fail the property). */
async function jsonataAnswer(source: string, context: unknown): Promise<Answer> {
  try {
    const { maxDepth, maxSequence } = DEFAULT_EXPRESSION_BUDGET;
    const expression = jsonata(source, { stack: maxDepth, sequence: maxSequence, RegexEngine: LinearRegExp } as never);
    return { value: stored(await expression.evaluate(structuredClone(context))) };
  } catch (error) {
    return { error: errorText(error) };
  }
}

/** A compiler held to JSONata: compilePlain, or in the test that shows the property can fail, a broken one. */
export type PlainCompiler = (ast: unknown) => PlainExpression | null;

/**
 * Compares plain-jsonata.ts (or `compile`) with JSONata on `source` over `context`; throws
 * PlainMismatchError when they differ. Says what it did: compared, or skipped (not plain at
 * compile time or on this context, or not JSONata at all).
 */
export async function compareWithJsonata(source: string, context: Record<string, unknown>, compile: PlainCompiler = compilePlain): Promise<Outcome> {
  let ast: unknown;
  try {
    ast = jsonata(source).ast();
  } catch {
    return 'unparsed';
  }
  const compiled = compile(ast);
  if (!compiled) return 'leftToJsonata';
  let plain: Answer;
  try {
    plain = { value: stored(compiled(structuredClone(context))) };
  } catch (error) {
    if (error === NOT_PLAIN) return 'notPlain';
    plain = { error: errorText(error) };
  }
  const reference = await jsonataAnswer(source, context);
  // An error where JSONata has one is the same answer (the caller falls back to JSONata on any).
  const same = 'error' in reference ? 'error' in plain : 'value' in plain && isDeepStrictEqual(plain.value, reference.value);
  if (!same) throw new PlainMismatchError(source, context, shown(plain), shown(reference));
  return 'compared';
}

/** Options of a property run. */
export interface PlainPropertyOptions {
  /** fast-check's seed: the same seed generates the same cases. */
  seed: number;
  /** How many (expression, context) cases to generate. */
  numRuns: number;
  /** Per case, in ms, before the run fails as hung. Default 10,000. */
  caseTimeoutMs?: number;
  /** The compiler held to JSONata. Default compilePlain. */
  compile?: PlainCompiler;
}

export interface PlainPropertyReport {
  seed: number;
  numRuns: number;
  counts: OutcomeCounts;
  /** fast-check's report of the smallest failing case (with the seed and path to replay it), when one failed. */
  failure: string | undefined;
}

/** Runs the property on `numRuns` generated cases; a mismatch is shrunk to a small case and reported. */
export async function checkPlainAgainstJsonata(options: PlainPropertyOptions): Promise<PlainPropertyReport> {
  const counts: OutcomeCounts = { compared: 0, notPlain: 0, leftToJsonata: 0, unparsed: 0 };
  let counting = true;
  const property = fc.asyncProperty(expressionArbitrary().map((expr) => render(expr)), contextArbitrary(), async (source, context) => {
    const outcome = await compareWithJsonata(source, context, options.compile).catch((error: unknown) => {
      // What shrinking tries after the first failure is not counted: the counts say what was generated.
      counting = false;
      throw error;
    });
    if (counting) counts[outcome] += 1;
  });
  const details = await fc.check(property, { seed: options.seed, numRuns: options.numRuns, timeout: options.caseTimeoutMs ?? 10_000, includeErrorInReport: true });
  return { seed: options.seed, numRuns: options.numRuns, counts, failure: details.failed ? await fc.asyncDefaultReportMessage(details) : undefined };
}

/** The counts in one line: `# compiled N, not plain N, left to JSONata N, unparsed N`. */
export const describeCounts = (counts: OutcomeCounts) => `# compiled ${counts.compared}, not plain ${counts.notPlain}, left to JSONata ${counts.leftToJsonata}, unparsed ${counts.unparsed}`;

/**
 * Why the counts show the run tested too little (undefined when it did not): most generated
 * expressions must compile and most compiled ones must be compared, or a generator gone wrong
 * would pass unseen.
 * @param minCompiledShare of the parsed cases, how many must compile (default 0.5)
 * @param minComparedShare of the parsed cases, how many must be compared with JSONata (default 0.35)
 */
export function tooLittleTested(counts: OutcomeCounts, minCompiledShare = 0.5, minComparedShare = 0.35): string | undefined {
  const parsed = counts.compared + counts.notPlain + counts.leftToJsonata;
  if (parsed === 0) return 'no generated expression parsed';
  if ((counts.compared + counts.notPlain) / parsed < minCompiledShare) return `only ${counts.compared + counts.notPlain} of ${parsed} parsed expressions compiled (under ${minCompiledShare * 100} %)`;
  if (counts.compared / parsed < minComparedShare) return `only ${counts.compared} of ${parsed} parsed cases compared with JSONata (under ${minComparedShare * 100} %)`;
  if (counts.unparsed > parsed) return `${counts.unparsed} generated expressions did not parse, more than parsed`;
  return undefined;
}
