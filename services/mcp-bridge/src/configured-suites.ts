/**
 * The suites that depend on configuration rather than on Redis alone: tool federation (the tool
 * services' own tools) and code intelligence over a workspace directory. Both entry points (HTTP
 * and stdio) add them the same way.
 */
import { createCodeIntel } from '@switchyard/code-intel';
import type { Logger } from '@switchyard/logger';
import type { ToolSuite } from '@switchyard/tool-suite';
import type { BridgeConfig } from './env.js';
import { codeIntelSuite } from './suites/code-intel/index.js';
import { federationSuite } from './suites/federation/index.js';

export async function configuredSuites(config: BridgeConfig, logger: Logger): Promise<{ suites: ToolSuite[]; close(): Promise<void> }> {
  const suites: ToolSuite[] = [];
  const federation = config.federation ? await federationSuite({ config: config.toolServices, logger }) : undefined;
  if (federation) suites.push(federation);
  const { root, ckbUrl, ckbCommand } = config.codeIntel;
  const intel = createCodeIntel({
    root,
    ...(ckbUrl || ckbCommand ? { ckb: { enabled: true, ...(ckbUrl ? { url: ckbUrl } : { command: ckbCommand }) } } : {}),
  });
  suites.push(codeIntelSuite({ intel }));
  return {
    suites,
    close: async () => {
      federation?.close();
      await intel.close();
    },
  };
}
