/**
 * Helpers shared by this package's tests (not exported): scratch directories, a listing of every
 * file under a directory (to prove nothing was written), filling a template completely, and
 * checking responses against the seed's shapes.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { z } from 'zod';
import type { AceflowErrorCode } from './errors.js';
import { errorResponseSchema, RESPONSE_SCHEMAS, type AceflowAction, type AceflowResponse, type ErrorResponse } from './responses.js';

/** A fresh directory under the system's temp dir, and a function removing it. */
export async function scratchDir(label: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `aceflow-${label}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Every entry below `dir` (files, directories and links), relative, sorted; [] when it does not exist. */
export async function listTree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return entries.map(String).sort();
}

/** The template with every placeholder replaced by a sentence naming it: a complete output. */
export function fillTemplate(template: string): string {
  return template.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_, name: string) => `The ${name.replace(/_/g, ' ')} of this project, written out in full for the reader.`);
}

/** The response, checked against the seed's shape of `action`'s success. */
export function expectSuccess<A extends AceflowAction>(action: A, response: AceflowResponse): z.output<(typeof RESPONSE_SCHEMAS)[A]> {
  const parsed = RESPONSE_SCHEMAS[action].safeParse(response);
  assert.ok(parsed.success, `${action} answered ${JSON.stringify(response).slice(0, 2000)}\n${parsed.error?.message ?? ''}`);
  return parsed.data as z.output<(typeof RESPONSE_SCHEMAS)[A]>;
}

/** The response, checked against the seed's error shape and code. */
export function expectError(response: AceflowResponse, code: AceflowErrorCode): ErrorResponse {
  const parsed = errorResponseSchema.safeParse(response);
  assert.ok(parsed.success, `expected ${code}, got ${JSON.stringify(response).slice(0, 2000)}`);
  assert.equal(parsed.data.error_code, code, parsed.data.error_message);
  assert.ok(parsed.data.suggested_actions.length > 0, 'an error suggests what to do');
  return parsed.data;
}
