/**
 * `ckb-mock-server`: the CKB-compatible MCP server over stdio (or Streamable HTTP with
 * CKB_MOCK_HTTP_PORT), answering about CKB_ROOT or its working directory. See env.ts for the
 * switches that make it slow, unhealthy or failing.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CodeIndex } from '../code-index.js';
import { loadEnv } from './env.js';
import { createCkbServer, serveCkbHttp } from './server.js';

const env = loadEnv();
// Kept in memory: a mock has no business writing next to the client's own snapshot.
const index = new CodeIndex({ root: env.CKB_ROOT ?? process.cwd(), dataDir: null });
const controls = { delayMs: env.CKB_MOCK_DELAY_MS, unavailable: env.CKB_UNAVAILABLE, failGraphTools: env.CKB_MOCK_FAIL };

if (env.CKB_MOCK_HTTP_PORT !== undefined) {
  const served = await serveCkbHttp(index, controls, { port: env.CKB_MOCK_HTTP_PORT });
  process.stderr.write(`ckb-mock-server listening on ${served.url}\n`);
  const stop = () => void served.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} else {
  await createCkbServer(index, controls).connect(new StdioServerTransport());
  // The client closing stdin is the end of the session, even with a delayed answer pending.
  process.stdin.on('end', () => process.exit(0));
  // Indexing now, not on the first graph call, keeps that call within the client's timeout.
  void index.refresh().catch((error: unknown) => process.stderr.write(`ckb-mock-server: indexing failed: ${String(error)}\n`));
}
