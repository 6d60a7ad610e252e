/** Configuration of the CKB mock server (`ckb-mock-server`), read once at start-up. */
import { z } from 'zod';
import { booleanFlag, loadEnv as load } from '@switchyard/config';

export const CkbMockEnv = z.object({
  /** Workspace the server answers about. Default: its working directory. */
  CKB_ROOT: z.string().optional(),
  /** Every tool answers after this many ms; above the client's 5 s it simulates a CKB timeout. */
  CKB_MOCK_DELAY_MS: z.coerce.number().int().min(0).default(0),
  /** getStatus reports "unavailable": the client's health check fails. */
  CKB_UNAVAILABLE: booleanFlag.default(false),
  /** The graph tools answer MCP errors. */
  CKB_MOCK_FAIL: booleanFlag.default(false),
  /** Serve Streamable HTTP on this port (0: any free one, printed on stderr) instead of stdio. */
  CKB_MOCK_HTTP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
});
export type CkbMockEnv = z.infer<typeof CkbMockEnv>;

export function loadEnv(source: Record<string, string | undefined> = process.env): CkbMockEnv {
  return load({ service: 'ckb-mock-server', schema: CkbMockEnv, source });
}
