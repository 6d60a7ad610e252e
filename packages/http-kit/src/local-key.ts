/**
 * The API key for local use: when no API_KEYS are configured, one key is generated on first
 * start, kept under `.data/` (readable by its owner only) and reused afterwards. The orchestrator
 * and the MCP bridge read the same file, so one key opens both.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

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
