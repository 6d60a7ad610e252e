/** The graph-rag CLI's environment, read once at start-up. */
import { z } from 'zod';
import { booleanFlag, loadEnv as load } from '@switchyard/config';

export const GraphRagEnv = z.object({
  /** Workspace to index. Default: the working directory (or --root). */
  CODE_INTEL_ROOT: z.string().optional(),
  /** Where the index snapshot is kept. Default: <root>/.data/code-intel. */
  CODE_INTEL_DATA_DIR: z.string().optional(),
  /** A JSON config file ({ckb_integration, embedding}); --config wins. */
  CODE_INTEL_CONFIG: z.string().optional(),
  /** CKB as a child over stdio: the command line, split at spaces (e.g. "ckb mcp"). */
  CKB_MCP_COMMAND: z.string().optional(),
  /** CKB over Streamable HTTP (e.g. http://127.0.0.1:8900/mcp). */
  CKB_MCP_URL: z.url().optional(),
  /** false reports `disabled` without contacting CKB (ckb_integration.enabled). */
  CKB_INTEGRATION_ENABLED: booleanFlag.optional(),
  /** Limit on connecting, the health check and each call. Default 5000. */
  CKB_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
  /** An OpenAI-compatible embedding endpoint (base URL); unset: the hashed embedder. */
  CODE_INTEL_EMBEDDING_URL: z.url().optional(),
  CODE_INTEL_EMBEDDING_MODEL: z.string().min(1).default('text-embedding-3-small'),
  CODE_INTEL_EMBEDDING_API_KEY: z.string().min(1).optional(),
});
export type GraphRagEnv = z.infer<typeof GraphRagEnv>;

export function loadEnv(source: Record<string, string | undefined> = process.env): GraphRagEnv {
  return load({ service: 'graph-rag', schema: GraphRagEnv, source });
}

/**
 * The environment a CKB child inherits: all of ours, so that settings meant for CKB (such as the
 * mock's CKB_MOCK_DELAY_MS) reach it; the SDK would otherwise pass only a safe minimum.
 */
export function childEnvironment(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
