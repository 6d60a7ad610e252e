/**
 * The switchyard command's settings, read once from its environment. The key defaults to the local
 * stack's (`.data/api-key` in this checkout, which `npm start` and `npm run stack` write), so a
 * command works against the local stack with nothing set.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { parseEnv } from '@switchyard/config';

/** The checkout this command runs from (src/ or dist/ alike are two levels below the package). */
export const CHECKOUT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const LOCAL_KEY_FILE = path.join(CHECKOUT_ROOT, '.data', 'api-key');
export const DEFAULT_URL = 'http://127.0.0.1:8080';

export const CliEnvSchema = z.object({
  /** The API's root URL (default http://127.0.0.1:8080, the local stack's). */
  SWITCHYARD_URL: z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL' }).default(DEFAULT_URL),
  /** The API key (default: the local stack's, read from .data/api-key in this checkout). */
  SWITCHYARD_KEY: z.string().trim().min(1).optional(),
  /** Ms one API call may take, its answer read (default 30 000; event streams have their own budget). */
  SWITCHYARD_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** Bytes an input file (-f, -i) may have, refused before it is read (default 32 MiB). */
  SWITCHYARD_MAX_FILE_BYTES: z.coerce.number().int().positive().max(1024 ** 3).default(32 * 1024 * 1024),
});

export interface CliEnv {
  url: string;
  /** The key, and where it came from (for the 401 message). */
  key: { value: string; from: 'SWITCHYARD_KEY' | 'local key file' } | undefined;
  timeoutMs: number;
  maxFileBytes: number;
}

/** The local key file's key, when the file is there (it holds one short line). */
function localKey(file: string): string | undefined {
  if (!existsSync(file) || statSync(file).size > 4096) return undefined;
  return readFileSync(file, 'utf8').trim() || undefined;
}

/** Throws EnvError (one line naming the variable) on a bad value. */
export function readCliEnv(source: Record<string, string | undefined> = process.env, keyFile = LOCAL_KEY_FILE): CliEnv {
  const env = parseEnv({ service: 'switchyard', schema: CliEnvSchema, source });
  const local = env.SWITCHYARD_KEY ? undefined : localKey(keyFile);
  return {
    url: env.SWITCHYARD_URL,
    key: env.SWITCHYARD_KEY ? { value: env.SWITCHYARD_KEY, from: 'SWITCHYARD_KEY' } : local ? { value: local, from: 'local key file' } : undefined,
    timeoutMs: env.SWITCHYARD_TIMEOUT_MS,
    maxFileBytes: env.SWITCHYARD_MAX_FILE_BYTES,
  };
}
