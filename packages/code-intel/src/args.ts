/**
 * The arguments of the three operations, checked with zod wherever they come from (the bridge,
 * the CLI, a direct call). A bad argument is an ArgumentError whose message names the argument
 * and the rule, e.g. "fusion_depth must be an integer from 0 to 5".
 */
import { z } from 'zod';

const present = (name: string, what: string) => ({ error: (issue: { input: unknown }) => (issue.input === undefined ? `${name} is required` : `${name} must be ${what}`) });
const query = z
  .string(present('query', 'a string'))
  .trim()
  .min(1, 'query must not be empty')
  .max(2000, 'query must be at most 2000 characters');
const integer = (name: string, min: number, max: number) => z.number({ error: `${name} must be an integer from ${min} to ${max}` }).int(`${name} must be an integer from ${min} to ${max}`).min(min, `${name} must be an integer from ${min} to ${max}`).max(max, `${name} must be an integer from ${min} to ${max}`);

export const graphRagArgsSchema = z.strictObject({
  query: query.describe('What to find, in words or identifiers'),
  top_k: integer('top_k', 1, 50).default(10).describe('Most candidates to return (1–50, default 10)'),
  budget: integer('budget', 1, 200_000).default(4000).describe('Token budget for all candidates\' content together (about 4 characters a token; default 4000)'),
  fusion_depth: integer('fusion_depth', 0, 5)
    .default(1)
    .describe('Graph hops from the fused vector+keyword hits (0 = vector search only, default 1, at most 5)'),
});
export type GraphRagArgs = z.output<typeof graphRagArgsSchema>;
export type GraphRagArgsInput = z.input<typeof graphRagArgsSchema>;

export const searchArgsSchema = z.strictObject({
  query: query.describe('Words or identifiers to search for'),
  mode: z.enum(['hybrid', 'keyword', 'vector'], { error: 'mode must be hybrid, keyword or vector' }).default('hybrid').describe('keyword (BM25), vector, or hybrid (both fused by reciprocal rank; default)'),
  top_k: integer('top_k', 1, 50).default(10).describe('Most chunks to return (1–50, default 10)'),
  path_prefix: z.string().max(500).optional().describe('Only files under this path, relative to the workspace (e.g. "src/lib/")'),
});
export type SearchArgs = z.output<typeof searchArgsSchema>;
export type SearchArgsInput = z.input<typeof searchArgsSchema>;

export const callChainArgsSchema = z.strictObject({
  symbol: z.string(present('symbol', 'a string')).trim().min(1, 'symbol must not be empty').max(200).describe('A function, method or class name; "Container.method" narrows a method'),
  file: z.string().max(500).optional().describe('Only the definition in this file (relative to the workspace)'),
  direction: z.enum(['callers', 'callees', 'both'], { error: 'direction must be callers, callees or both' }).default('both').describe('Who calls it, what it calls, or both (default)'),
  depth: integer('depth', 1, 5).default(2).describe('Calls away to follow (1–5, default 2)'),
});
export type CallChainArgs = z.output<typeof callChainArgsSchema>;
export type CallChainArgsInput = z.input<typeof callChainArgsSchema>;

export class ArgumentError extends Error {
  override name = 'ArgumentError';
  readonly issues: { field: string; message: string }[];
  constructor(issues: { field: string; message: string }[]) {
    super(issues.map((issue) => issue.message).join('; '));
    this.issues = issues;
  }
}

/** Parses arguments or throws an ArgumentError naming every bad one. */
export function parseArgs<S extends z.ZodType>(schema: S, args: unknown): z.output<S> {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  throw new ArgumentError(
    parsed.error.issues.map((issue) => {
      const field = issue.path.map(String).join('.');
      const message = issue.code === 'unrecognized_keys' ? `unknown argument ${issue.keys.join(', ')}` : issue.message;
      return { field: field || (issue.code === 'unrecognized_keys' ? issue.keys.join(',') : '(arguments)'), message };
    }),
  );
}
