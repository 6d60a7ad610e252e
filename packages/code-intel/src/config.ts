/**
 * Configuration of code intelligence, in the seed's words (`ckb_integration.enabled`): where CKB
 * is, how long to wait for it and how long to leave it alone after a failure, and which embedder
 * makes the vectors. Parsed with zod wherever it enters: a config file, the CLI's environment, a
 * suite's dependencies.
 */
import { z } from 'zod';

export const ckbIntegrationSchema = z
  .object({
    /** false reports `disabled` and never contacts CKB. Default true. */
    enabled: z.boolean().default(true),
    /** A CKB MCP server started as a child over stdio, e.g. "ckb" with args ["mcp"]. */
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    /** The child's environment (the SDK passes only a safe minimum when this is unset). */
    env: z.record(z.string(), z.string()).optional(),
    /** The child's working directory. Default: the workspace root. */
    cwd: z.string().optional(),
    /** A CKB MCP server over Streamable HTTP, e.g. http://127.0.0.1:8900/mcp. */
    url: z.url().optional(),
    /** Limit on connecting, the health check and each CKB call. Default 5000 (the seed's 5 s). */
    timeout_ms: z.number().int().positive().default(5000),
    /**
     * Limit on starting a CKB child and its MCP handshake, when longer than `timeout_ms` (a local
     * process starting is no network latency). Default: `timeout_ms`.
     */
    start_timeout_ms: z.number().int().positive().optional(),
    /** Fallback lasts this long after a failure. Default 60 (the seed's cooldown; at most 60). */
    cooldown_s: z.number().int().min(1).max(60).default(60),
  })
  .refine((c) => !(c.command && c.url), { message: 'ckb_integration takes a command or a url, not both' });
export type CkbIntegration = z.output<typeof ckbIntegrationSchema>;
export type CkbIntegrationInput = z.input<typeof ckbIntegrationSchema>;

export const embeddingSchema = z.discriminatedUnion('provider', [
  z.object({
    provider: z.literal('hashed'),
    /** Default 1024. */
    dimensions: z.number().int().min(64).max(8192).optional(),
  }),
  z.object({
    provider: z.literal('openai-compatible'),
    /** Base URL; vectors come from POST {url}/embeddings. */
    url: z.url(),
    model: z.string().min(1),
    api_key: z.string().min(1).optional(),
  }),
]);
export type EmbeddingConfig = z.infer<typeof embeddingSchema>;

/** The shape of a config file (`graph-rag --config file.json`). */
export const codeIntelConfigSchema = z.object({
  ckb_integration: ckbIntegrationSchema.optional(),
  embedding: embeddingSchema.optional(),
});
export type CodeIntelConfig = z.infer<typeof codeIntelConfigSchema>;
