/**
 * The suites that depend on configuration rather than on Redis alone: tool federation (the tool
 * services' own tools) and code intelligence over a workspace directory. Both entry points (HTTP
 * and stdio) add them the same way.
 */
import { BUNDLED_CKB, createCodeIntel } from '@switchyard/code-intel';
import type { Logger } from '@switchyard/logger';
import type { ToolSuite } from '@switchyard/tool-suite';
import type { BridgeConfig } from './env.js';
import { codeIntelSuite } from './suites/code-intel/index.js';
import { federationSuite, type FederationOptions } from './suites/federation/index.js';

/** @param toolClient options of the federation's tool clients, e.g. the metrics' `onCallEnd` (default none) */
export async function configuredSuites(config: BridgeConfig, logger: Logger, toolClient?: FederationOptions['client']): Promise<{ suites: ToolSuite[]; close(): Promise<void> }> {
  const suites: ToolSuite[] = [];
  const federation = config.federation ? await federationSuite({ config: config.toolServices, logger, ...(toolClient ? { client: toolClient } : {}) }) : undefined;
  if (federation) suites.push(federation);
  const { root, ckbUrl, ckbCommand } = config.codeIntel;
  // No CKB configured: the bundled CKB-compatible server over the same workspace.
  const ckb = ckbUrl ? { url: ckbUrl } : ckbCommand ? { command: ckbCommand } : { ...BUNDLED_CKB, args: [...BUNDLED_CKB.args] };
  const intel = createCodeIntel({ root, ckb: { enabled: config.codeIntel.ckbEnabled, ...ckb } });
  // Started with the bridge, so that it has indexed the workspace before the first query.
  if (config.codeIntel.ckbEnabled) void intel.ckb.open().catch((error: unknown) => logger.warn({ err: error }, 'CKB did not start; graph-RAG falls back until it does'));
  suites.push(codeIntelSuite({ intel }));
  return {
    suites,
    close: async () => {
      federation?.close();
      await intel.close();
    },
  };
}
