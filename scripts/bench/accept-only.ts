/**
 * The orchestrator alone (no workers), for measuring what accepting a request costs.
 */
import { parseToolServicesEnv } from '@switchyard/contracts';
import { createLogger } from '@switchyard/logger';
import { startOrchestrator } from '@switchyard/orchestrator';

export async function startOrchestratorOnly(options: { redisUrl: string; prefix: string }) {
  const api = await startOrchestrator({ redisUrl: options.redisUrl, prefix: options.prefix, apiKeys: ['bench-key'], toolServices: parseToolServicesEnv({}), logger: createLogger({ name: 'bench', level: 'silent' }) });
  return {
    async post(path: string, body: unknown) {
      const res = await fetch(`${api.url}${path}`, { method: 'POST', headers: { authorization: 'Bearer bench-key', 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await res.body?.cancel();
      return { status: res.status };
    },
    close: () => api.close(),
  };
}
