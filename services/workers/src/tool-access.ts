/**
 * Misconfiguration said at start-up, not discovered one failed run at a time: each tool service is
 * asked for its health and, with the configured key, its tool listing. A refused key is an error
 * line naming the variable to fix; a service that is down is a warning (its stages wait for it).
 */
import type { Logger } from '@switchyard/logger';
import type { ToolServiceClient } from '@switchyard/tool-client';

export interface ToolAccessReport {
  service: string;
  healthy: boolean;
  keyRefused: boolean;
  error?: string | undefined;
}

export async function reportToolAccess(clients: Record<string, ToolServiceClient>, logger: Logger): Promise<ToolAccessReport[]> {
  const reports = await Promise.all(
    Object.values(clients).map(async (client) => {
      const health = await client.health();
      return { service: client.service, healthy: health.healthy, keyRefused: health.keyRefused ?? false, error: health.error };
    }),
  );
  for (const report of reports) {
    if (report.keyRefused) logger.error({ tool_service: report.service, config: 'TOOL_SERVICE_API_KEY' }, report.error ?? 'the tool service refused the key');
    else if (!report.healthy) logger.warn({ tool_service: report.service, err: report.error }, 'a tool service is not reachable at start-up; its stages wait for it');
  }
  return reports;
}
