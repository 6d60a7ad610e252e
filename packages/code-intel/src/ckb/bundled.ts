/**
 * The CKB-compatible server shipped in this package (`ckb-mock-server`), started as a child over
 * stdio when no CKB is configured, so that graph-RAG answers with CKB on a plain checkout (seed
 * 001's contract tests run as written). It indexes its working directory as it starts, and
 * honours the seed's CKB_UNAVAILABLE and CKB_MOCK_DELAY_MS from the environment it inherits.
 */
import { fileURLToPath } from 'node:url';

/** The command line of the bundled server: this Node with the package's bin script. */
export const BUNDLED_CKB = {
  command: process.execPath,
  args: [fileURLToPath(new URL('../../bin/ckb-mock-server.mjs', import.meta.url))],
} as const;
