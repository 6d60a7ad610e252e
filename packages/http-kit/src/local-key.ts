/**
 * The API key for local use: when no API_KEYS are configured, one key is generated on first
 * start, kept under `.data/` (readable by its owner only) and reused afterwards. The orchestrator
 * and the MCP bridge read the same file, so one key opens both.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { withImpliedScopes, type ApiKeyEntry } from '@switchyard/config';

export function localApiKey(dataDir: string): { key: string; file: string; created: boolean } {
  const file = path.join(dataDir, 'api-key');
  if (existsSync(file)) {
    const key = readFileSync(file, 'utf8').trim();
    if (key) return { key, file, created: false };
  }
  mkdirSync(dataDir, { recursive: true });
  const key = `sy_${randomBytes(24).toString('hex')}`;
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return { key, file, created: true };
}

/**
 * The keys a service accepts: the configured ones, or else the local key with every scope,
 * announced with one line on stdout (a person starting the service locally needs it to call it).
 */
export function configuredOrLocalKeys(configured: ApiKeyEntry[] | undefined, dataDir: string): ApiKeyEntry[] {
  if (configured && configured.length > 0) return configured;
  const local = localApiKey(dataDir);
  process.stdout.write(`API key (${local.created ? 'generated' : 'kept'} in ${path.relative(process.cwd(), local.file)}): ${local.key}\n`);
  return [{ key: local.key, scopes: withImpliedScopes([]) }];
}
