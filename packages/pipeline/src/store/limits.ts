/**
 * What a run may hold: its input, a map step's list, a step's output, its result, and how much a
 * listing page of runs carries. Every process reads these alike (the orchestrator and the MCP
 * bridge check inputs, the workers maps and outputs), from the same variables (runLimitsEnvShape).
 * Sizes are bytes of the value as JSON, measured by a walk that stops once past the limit, so a
 * value that would be gigabytes as text (one object referenced a thousand times) is never written out.
 */
import { z } from 'zod';

const KIB = 1024;
const MIB = 1024 * KIB;

export interface RunLimits {
  /** Largest input of one run, as JSON (RUN_MAX_INPUT_BYTES, default 1 MiB). */
  inputBytes: number;
  /** Largest input of an AceFlow run, whose analysis may be 10 MB (seed 000) (ACEFLOW_RUN_MAX_INPUT_BYTES, default 10 MiB + 64 KiB). */
  aceflowInputBytes: number;
  /** Largest inputs of one batch together, after each item is merged over `defaults` (BATCH_MAX_INPUT_BYTES, default 32 MiB). */
  batchInputBytes: number;
  /** Most items a map step's list may have (MAP_MAX_ITEMS, default 1000). */
  mapItems: number;
  /** Largest item of a map step's list, as JSON (MAP_MAX_ITEM_BYTES, default 256 KiB). */
  mapItemBytes: number;
  /** Largest map step's list, all items together (MAP_MAX_LIST_BYTES, default 8 MiB). */
  mapListBytes: number;
  /** Largest output of one step (or one map branch) (STEP_MAX_OUTPUT_BYTES, default 4 MiB). */
  stepOutputBytes: number;
  /** Largest output of a map step, all branches together: a branch of n may give 1/n of it (MAP_MAX_OUTPUT_BYTES, default 16 MiB). */
  mapOutputBytes: number;
  /** Largest result of a run, its definition's `output` (RUN_MAX_RESULT_BYTES, default 16 MiB). */
  resultBytes: number;
  /** Bytes of runs (or batches, pipelines) one listing page carries before it stops early (LIST_PAGE_MAX_BYTES, default 4 MiB). */
  listPageBytes: number;
  /** Runs one API key may hold at once, queued, running or waiting, child runs included (RUNS_MAX_LIVE_PER_KEY, default 10,000: one largest batch). */
  liveRunsPerKey: number;
  /** Child runs one run's whole tree may start, at every depth (RUN_MAX_DESCENDANTS, default 1,000: one largest map of children). */
  descendantsPerRun: number;
}

export const DEFAULT_RUN_LIMITS: Readonly<RunLimits> = {
  inputBytes: MIB,
  aceflowInputBytes: 10 * MIB + 64 * KIB,
  batchInputBytes: 32 * MIB,
  mapItems: 1000,
  mapItemBytes: 256 * KIB,
  mapListBytes: 8 * MIB,
  stepOutputBytes: 4 * MIB,
  mapOutputBytes: 16 * MIB,
  resultBytes: 16 * MIB,
  listPageBytes: 4 * MIB,
  liveRunsPerKey: 10_000,
  descendantsPerRun: 1000,
};

/** The variable that sets each limit, for error details and docs. */
export const RUN_LIMIT_VARIABLES: Readonly<Record<keyof RunLimits, string>> = {
  inputBytes: 'RUN_MAX_INPUT_BYTES',
  aceflowInputBytes: 'ACEFLOW_RUN_MAX_INPUT_BYTES',
  batchInputBytes: 'BATCH_MAX_INPUT_BYTES',
  mapItems: 'MAP_MAX_ITEMS',
  mapItemBytes: 'MAP_MAX_ITEM_BYTES',
  mapListBytes: 'MAP_MAX_LIST_BYTES',
  stepOutputBytes: 'STEP_MAX_OUTPUT_BYTES',
  mapOutputBytes: 'MAP_MAX_OUTPUT_BYTES',
  resultBytes: 'RUN_MAX_RESULT_BYTES',
  listPageBytes: 'LIST_PAGE_MAX_BYTES',
  liveRunsPerKey: 'RUNS_MAX_LIVE_PER_KEY',
  descendantsPerRun: 'RUN_MAX_DESCENDANTS',
};

const bytes = (fallback: number, max: number) => z.coerce.number().int().min(KIB).max(max).default(fallback);

/**
 * The limits' variables, read alike by the orchestrator, the workers and the MCP bridge (each
 * spreads this into its env.ts schema). Bytes are of JSON text.
 */
export const runLimitsEnvShape = {
  RUN_MAX_INPUT_BYTES: bytes(DEFAULT_RUN_LIMITS.inputBytes, 64 * MIB),
  ACEFLOW_RUN_MAX_INPUT_BYTES: bytes(DEFAULT_RUN_LIMITS.aceflowInputBytes, 64 * MIB),
  BATCH_MAX_INPUT_BYTES: bytes(DEFAULT_RUN_LIMITS.batchInputBytes, 1024 * MIB),
  MAP_MAX_ITEMS: z.coerce.number().int().min(1).max(100_000).default(DEFAULT_RUN_LIMITS.mapItems),
  MAP_MAX_ITEM_BYTES: bytes(DEFAULT_RUN_LIMITS.mapItemBytes, 64 * MIB),
  MAP_MAX_LIST_BYTES: bytes(DEFAULT_RUN_LIMITS.mapListBytes, 256 * MIB),
  STEP_MAX_OUTPUT_BYTES: bytes(DEFAULT_RUN_LIMITS.stepOutputBytes, 256 * MIB),
  MAP_MAX_OUTPUT_BYTES: bytes(DEFAULT_RUN_LIMITS.mapOutputBytes, 256 * MIB),
  RUN_MAX_RESULT_BYTES: bytes(DEFAULT_RUN_LIMITS.resultBytes, 256 * MIB),
  LIST_PAGE_MAX_BYTES: bytes(DEFAULT_RUN_LIMITS.listPageBytes, 256 * MIB),
  RUNS_MAX_LIVE_PER_KEY: z.coerce.number().int().min(1).max(10_000_000).default(DEFAULT_RUN_LIMITS.liveRunsPerKey),
  RUN_MAX_DESCENDANTS: z.coerce.number().int().min(0).max(1_000_000).default(DEFAULT_RUN_LIMITS.descendantsPerRun),
};

type RunLimitsEnv = { [K in keyof typeof runLimitsEnvShape]: number };

/** The parsed runLimitsEnvShape variables as RunLimits. */
export function runLimitsConfig(env: RunLimitsEnv): RunLimits {
  return {
    inputBytes: env.RUN_MAX_INPUT_BYTES,
    aceflowInputBytes: env.ACEFLOW_RUN_MAX_INPUT_BYTES,
    batchInputBytes: env.BATCH_MAX_INPUT_BYTES,
    mapItems: env.MAP_MAX_ITEMS,
    mapItemBytes: env.MAP_MAX_ITEM_BYTES,
    mapListBytes: env.MAP_MAX_LIST_BYTES,
    stepOutputBytes: env.STEP_MAX_OUTPUT_BYTES,
    mapOutputBytes: env.MAP_MAX_OUTPUT_BYTES,
    resultBytes: env.RUN_MAX_RESULT_BYTES,
    listPageBytes: env.LIST_PAGE_MAX_BYTES,
    liveRunsPerKey: env.RUNS_MAX_LIVE_PER_KEY,
    descendantsPerRun: env.RUN_MAX_DESCENDANTS,
  };
}

/** The limits with the defaults under whatever a caller gives. */
export const runLimitsOf = (given?: Partial<RunLimits>): RunLimits => ({ ...DEFAULT_RUN_LIMITS, ...given });

/**
 * A value past one of the run limits: `code` says which kind (`input_too_large`, …), `limit` names
 * the RunLimits entry, whose variable the details give.
 */
export class RunLimitError extends Error {
  override name = 'RunLimitError';
  readonly code: string;
  readonly limit: keyof RunLimits;
  readonly details: { limit_bytes?: number; limit?: number; variable: string; path?: string; size_bytes?: number; count?: number };

  constructor(options: { code: string; limit: keyof RunLimits; limitValue: number; message: string; path?: string; sizeBytes?: number; count?: number }) {
    super(options.message);
    this.code = options.code;
    this.limit = options.limit;
    const counted = options.limit === 'mapItems';
    this.details = {
      ...(counted ? { limit: options.limitValue } : { limit_bytes: options.limitValue }),
      variable: RUN_LIMIT_VARIABLES[options.limit],
      ...(options.path !== undefined ? { path: options.path } : {}),
      ...(options.sizeBytes !== undefined ? { size_bytes: options.sizeBytes } : {}),
      ...(options.count !== undefined ? { count: options.count } : {}),
    };
  }
}

/** Bytes of a string as JSON text: its quotes, its UTF-8, and what JSON escapes. */
function stringBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text));
}

/**
 * Bytes of `value` as `JSON.stringify` writes it, or undefined once they pass `budget`: the walk is
 * iterative (any depth) and stops as soon as the budget is spent, so its cost is bounded by the
 * budget, not by the value (a list holding one large object a thousand times is a thousand times
 * its size as text, and never made). A string longer than what is left is not even looked into.
 */
export function jsonBytesWithin(value: unknown, budget: number): number | undefined {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    total += scalarBytes(next, budget - total) ?? pushContainer(next as object, stack);
    if (total > budget) return undefined;
  }
  return total;
}

/** The bytes of a value that holds no other, or undefined for an array or object. */
function scalarBytes(value: unknown, left: number): number | undefined {
  switch (typeof value) {
    case 'string':
      // At least one byte a character: one longer than what is left is over, unmeasured.
      return value.length > left ? left + 1 : stringBytes(value);
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'bigint':
      // JSON.stringify throws on a bigint: nothing writes one, so it cannot pass either.
      return left + 1;
    case 'object':
      if (value === null) return 4;
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return scalarBytes((value as { toJSON(): unknown }).toJSON(), left);
      return undefined;
    default:
      // undefined, functions and symbols: left out of objects, null in arrays (see pushContainer).
      return 4;
  }
}

const omitted = (value: unknown) => value === undefined || typeof value === 'function' || typeof value === 'symbol';

/** Pushes the values an array or object holds; answers the bytes of the rest of it (brackets, commas, keys). */
function pushContainer(value: object, stack: unknown[]): number {
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) stack.push(item);
    return 2 + Math.max(value.length - 1, 0);
  }
  let bytes = 2;
  let entries = 0;
  for (const [key, item] of Object.entries(value)) {
    if (omitted(item)) continue;
    entries += 1;
    bytes += stringBytes(key) + 1;
    stack.push(item);
  }
  return bytes + Math.max(entries - 1, 0);
}
