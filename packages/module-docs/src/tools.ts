/**
 * The four module-doc tools of seed 003: their definitions (FUNC003) and one handler (FUNC002)
 * answering JSON-RPC 2.0 responses. Arguments are checked by the rules table first (FUNC001).
 */
import { checkParameters, MODULE_DOCS_TOOLS, rulesToJsonSchema, type ModuleDocsTool, type RuleViolation } from './rules.js';
import { generateHierarchicalName, ModuleNameError, type Module, type ModuleType } from './module.js';
import { ModuleStoreError, type ModuleStore } from './store.js';
import { TYPE_STRUCTURES } from './type-structures.js';

export interface ToolCall {
  name: ModuleDocsTool;
  description: string;
  inputSchema: Record<string, unknown>;
}

export type RequestId = string | number | null;
export interface McpError {
  code: number;
  message: string;
  data?: unknown;
}
export type McpResponse = { jsonrpc: '2.0'; id: RequestId; result: Record<string, unknown> } | { jsonrpc: '2.0'; id: RequestId; error: McpError };

/** JSON-RPC codes: the standard ones, and server-defined ones for the domain's refusals. */
export const ERROR_CODES = {
  methodNotFound: -32601,
  invalidParams: -32602,
  moduleNotFound: -32001,
  duplicateModule: -32002,
  parentNotFound: -32003,
  cycle: -32004,
} as const;

const DESCRIPTIONS: Record<ModuleDocsTool, string> = {
  add_module: 'Add a module (class, function, variable, file or functionGroup). Its hierarchical name is generated from parent and name; the parent must exist and the name must be free.',
  get_module_by_name: 'Get one module by its exact hierarchical name (e.g. utils.parser.parse_line).',
  smart_search: 'Search modules by name and description, filtered by type, parent and file; ranked by relevance (exact name, prefix, substring, description) and paged.',
  get_type_structure: 'Describe a module type: its data structure and fields.',
};

export function listAvailableTools(): ToolCall[] {
  return MODULE_DOCS_TOOLS.map((name) => ({ name, description: DESCRIPTIONS[name], inputSchema: rulesToJsonSchema(name) }));
}

const DEFAULT_PROJECT = 'default';
const ok = (id: RequestId, result: Record<string, unknown>): McpResponse => ({ jsonrpc: '2.0', id, result });
const fail = (id: RequestId, error: McpError): McpResponse => ({ jsonrpc: '2.0', id, error });
const invalid = (id: RequestId, violations: RuleViolation[]) => fail(id, { code: ERROR_CODES.invalidParams, message: violations.map((v) => v.message).join('; '), data: { violations } });

export function createModuleDocsHandler(store: ModuleStore) {
  async function run(tool: ModuleDocsTool, params: Record<string, unknown>, id: RequestId): Promise<McpResponse> {
    const project = (params.project as string | undefined) ?? DEFAULT_PROJECT;
    switch (tool) {
      case 'add_module': {
        const parent = params.parent as string | undefined;
        const hierarchical_name = generateHierarchicalName(parent, params.name as string);
        const module: Module = {
          name: params.name as string,
          hierarchical_name,
          type: params.type as ModuleType,
          description: params.description as string,
          ...(parent ? { parent } : {}),
          ...(params.file ? { file: params.file as string } : {}),
        };
        return ok(id, { module: await store.add(project, module) });
      }
      case 'get_module_by_name': {
        const module = await store.get(project, params.hierarchical_name as string);
        return module ? ok(id, { module }) : fail(id, { code: ERROR_CODES.moduleNotFound, message: `No module named '${String(params.hierarchical_name)}'` });
      }
      case 'smart_search': {
        const page = await store.search(project, params as Parameters<ModuleStore['search']>[1]);
        return ok(id, { ...page });
      }
      case 'get_type_structure':
        return ok(id, { ...TYPE_STRUCTURES[params.type_name as ModuleType] });
    }
  }

  /** Handles one tool call (FUNC002); never throws for a caller's mistake. */
  return async function handleMcpTool(name: string, args: unknown, id: RequestId = null): Promise<McpResponse> {
    if (!(MODULE_DOCS_TOOLS as readonly string[]).includes(name)) return fail(id, { code: ERROR_CODES.methodNotFound, message: `Unknown tool '${name}'` });
    const tool = name as ModuleDocsTool;
    const checked = checkParameters(tool, args ?? {});
    if (!checked.ok) return invalid(id, checked.violations);
    try {
      return await run(tool, checked.params, id);
    } catch (error) {
      if (error instanceof ModuleNameError) return invalid(id, [{ field: 'name', rule: 'pattern', message: error.message }]);
      if (error instanceof ModuleStoreError) {
        const code = { duplicate: ERROR_CODES.duplicateModule, parent_not_found: ERROR_CODES.parentNotFound, cycle: ERROR_CODES.cycle }[error.kind];
        return fail(id, { code, message: error.message });
      }
      throw error;
    }
  };
}
