/**
 * Which of the launcher's environment variables its children get: every variable a service's
 * env schema reads (one list, made from the schemas, so a new setting reaches its service
 * without a change here), less those the launcher sets for each child itself.
 */
// The env modules alone, not the services' indexes: the launcher starts no service in its own process.
import { BridgeEnv } from '../../services/mcp-bridge/src/env.js';
import { OrchestratorEnv } from '../../services/orchestrator/src/env.js';
import { ToolServicesEnv } from '../../services/tool-services/src/env.js';
import { WorkersEnv } from '../../services/workers/src/env.js';
import { modelKeyVariables } from '@switchyard/models';

/** Every variable some service reads. */
export const SERVICE_VARIABLES: ReadonlySet<string> = new Set([OrchestratorEnv, WorkersEnv, BridgeEnv, ToolServicesEnv].flatMap((schema) => Object.keys(schema.shape)));

/**
 * Set by the launcher for each child: where Redis is (REDIS_URL and REDIS_CLUSTER_NODES are
 * resolved into one URL first), each service's port and URL, the keys, the metrics port.
 */
const LAUNCHER_SETS = /^(REDIS_URL|REDIS_CLUSTER_NODES|PORT|API_KEYS|METRICS_PORT|TOOL_SERVICE_API_KEYS?|LOG_LEVEL|[A-Z]+_SERVICE_(URL|PORT))$/;

/**
 * The variables of `env` its services read and the launcher does not set itself, with the key
 * variables MODELS names (`api_key_env`, which no schema lists); empty ones are left out.
 */
export function passedThrough(env: Record<string, string | undefined>): Record<string, string> {
  const modelKeys = new Set(modelKeyVariables(env.MODELS));
  const read = (name: string) => (SERVICE_VARIABLES.has(name) && !LAUNCHER_SETS.test(name)) || modelKeys.has(name);
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => read(e[0]) && Boolean(e[1])));
}
