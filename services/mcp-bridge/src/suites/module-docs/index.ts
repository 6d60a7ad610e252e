/**
 * The module-docs suite (seed 003): add_module, get_module_by_name, smart_search and
 * get_type_structure over a Redis store per project. The seed's rules table is the input schema;
 * a refusal is an `isError` result holding the seed's JSON-RPC error.
 */
import type { Redis } from 'ioredis';
import { checkParameters, createModuleDocsHandler, ERROR_CODES, listAvailableTools, ModuleStore, type ModuleDocsTool } from '@switchyard/module-docs';
import type { JsonSchema, ToolAnnotations, ToolSuite } from '@switchyard/tool-suite';

const ANNOTATIONS: Record<ModuleDocsTool, ToolAnnotations> = {
  add_module: { title: 'Add a module', readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  get_module_by_name: { title: 'Get a module by name', readOnlyHint: true, idempotentHint: true },
  smart_search: { title: 'Search modules', readOnlyHint: true, idempotentHint: true },
  get_type_structure: { title: 'Describe a module type', readOnlyHint: true, idempotentHint: true },
};

/** Every reply is a JSON-RPC 2.0 response object (seed 003's MCPResponse). */
const RESPONSE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'number', 'null'] },
    result: { type: 'object' },
    error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} }, required: ['code', 'message'] },
  },
  required: ['jsonrpc', 'id'],
};

/** @param deps.prefix key prefix of the deployment (the queues' prefix) */
export function moduleDocsSuite(deps: { redis: Redis; prefix: string }): ToolSuite {
  const handle = createModuleDocsHandler(new ModuleStore(deps));
  return {
    name: 'module-docs',
    description: 'Code documentation modules with hierarchical names, ranked search and type structures (seed 003).',
    tools: listAvailableTools().map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: RESPONSE_SCHEMA,
      annotations: ANNOTATIONS[tool.name],
      // The answer carries the id of the request it answers (seed 003's MCPResponse), not a count of calls.
      handler: async (args, context) => {
        const response = await handle(tool.name, args, context.requestId);
        return { content: response as unknown as Record<string, unknown>, isError: 'error' in response };
      },
    })),
    // The seed's JSON-RPC invalid-params answer, naming the rules broken, with the request's id.
    refuseArguments: (tool, refusal) => {
      const checked = checkParameters(tool as ModuleDocsTool, refusal.args);
      const error = checked.ok
        ? { code: ERROR_CODES.invalidParams, message: refusal.message, data: refusal.details }
        : { code: ERROR_CODES.invalidParams, message: checked.violations.map((v) => v.message).join('; '), data: { violations: checked.violations } };
      return { content: { jsonrpc: '2.0', id: refusal.requestId, error }, isError: true };
    },
  };
}
