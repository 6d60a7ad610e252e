/** Shared by this package's tests: the fixture workspace, a clock moved by hand, schema checks. */
import assert from 'node:assert/strict';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import type { Clock } from './clock.js';
import type { GraphRagAnswer } from './graph-rag.js';
import { MCP_OUTPUT_METADATA_SCHEMA } from './metadata.js';

/** The checked-in sample workspace: a TypeScript API, a JavaScript cart and a Python package. */
export const FIXTURE_ROOT = fileURLToPath(new URL('../fixtures/sample-repo', import.meta.url));

/** A scratch copy of the fixture (to edit), removed by the returned function. */
export async function fixtureCopy(): Promise<{ root: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'code-intel-'));
  const root = path.join(dir, 'repo');
  await cp(FIXTURE_ROOT, root, { recursive: true });
  return { root, remove: () => rm(dir, { recursive: true, force: true }) };
}

export async function scratchDir(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'code-intel-data-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface ManualClock extends Clock {
  advance(ms: number): void;
}

export function manualClock(start = Date.UTC(2026, 0, 18)): ManualClock {
  let now = start;
  return { now: () => now, advance: (ms) => void (now += ms) };
}

const validateMetadata = new Ajv({ allErrors: true }).compile(MCP_OUTPUT_METADATA_SCHEMA);

/** Asserts a graph-RAG answer's shape, and its metadata against seed 001 §3.1 with a JSON Schema validator. */
export function assertValidAnswer(answer: GraphRagAnswer): void {
  assert.ok(validateMetadata(answer.metadata), JSON.stringify(validateMetadata.errors));
  assert.deepEqual(
    Object.keys(answer.metadata).filter((key) => !['ckb_available', 'ckb_fallback_reason', 'ckb_last_error', 'ckb_cooldown_remaining_s', 'fallback_mode', 'fusion_depth', 'total_candidates', 'query_time_ms'].includes(key)),
    [],
    'no metadata beyond the seed\'s',
  );
  assert.ok(Number.isInteger(answer.metadata.total_candidates) && answer.metadata.total_candidates >= answer.candidates.length);
  assert.ok(Number.isInteger(answer.metadata.query_time_ms) && answer.metadata.query_time_ms >= 0);
  for (const candidate of answer.candidates) {
    assert.deepEqual(Object.keys(candidate), ['file', 'relevance', 'content']);
    assert.ok(candidate.relevance >= 0 && candidate.relevance <= 1);
    assert.ok(candidate.content.length > 0);
  }
}
