/**
 * The CKB-compatible server shipped in this package (`ckb-mock-server`), started as a child over
 * stdio when no CKB is configured, so that graph-RAG answers with CKB on a plain checkout (seed
 * 001's contract tests run as written). It indexes its working directory as it starts, and
 * honours the seed's CKB_UNAVAILABLE and CKB_MOCK_DELAY_MS from the environment it inherits.
 */
import { fileURLToPath } from 'node:url';

/**
 * From the sources, the bin script (which loads them through tsx); compiled (this file is
 * `dist/ckb/bundled.js`), the compiled server beside it, with no TypeScript loader, the workspace
 * packages resolved to their `dist/` as this process resolves them.
 */
function serverArguments(): string[] {
  if (import.meta.url.endsWith('.ts')) return [fileURLToPath(new URL('../../bin/ckb-mock-server.mjs', import.meta.url))];
  return ['--conditions=switchyard-dist', fileURLToPath(new URL('./main.js', import.meta.url))];
}

/**
 * The bundled server as a ckb_integration: this Node with the package's bin script. Its start
 * (Node, TypeScript compiled on the fly, the first index) may take longer than the 5 s allowed a
 * CKB answer, on a cold cache or a busy machine, so starting it is allowed 30 s; its health check
 * and calls keep the seed's 5 s.
 */
export const BUNDLED_CKB = {
  command: process.execPath,
  args: serverArguments(),
  start_timeout_ms: 30_000,
} as const;
