/**
 * The code-intel suite (issue 7, seed 001): ci_graph_rag, ci_search and ci_call_chain over one
 * workspace's index, with CKB's graph when it is configured and healthy. Arguments the published
 * schema cannot rule out (a query of blanks) are the protocol's invalid-params error, like a
 * schema mismatch; a symbol that is nowhere is a tool failure the agent can act on.
 */
import {
  ArgumentError,
  callChainArgsSchema,
  createCodeIntel,
  graphRagArgsSchema,
  MCP_OUTPUT_METADATA_SCHEMA,
  searchArgsSchema,
  SymbolNotFoundError,
  type CodeIntel,
  type CodeIntelOptions,
} from '@switchyard/code-intel';
import { failure, InvalidArgumentsError, jsonSchemaOf, success, type JsonSchema, type SuiteTool, type ToolSuite } from '@switchyard/tool-suite';

/** The index's options (root, data folder, CKB, embedding; see CodeIntelOptions for defaults), or a CodeIntel to share. */
export type CodeIntelSuiteDeps = CodeIntelOptions | { intel: CodeIntel };

const ERROR_BODY: JsonSchema = {
  type: 'object',
  properties: { error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' }, details: {} }, required: ['code', 'message'] } },
  required: ['error'],
};
const orError = (answer: JsonSchema): JsonSchema => ({ type: 'object', anyOf: [answer, ERROR_BODY] });

// Seed 001 §3.1 as the metadata's schema, with the two counts every answer also carries.
const { $schema: _dialect, $id: _id, title: _title, description: _description, ...seedMetadata } = MCP_OUTPUT_METADATA_SCHEMA;
const METADATA: JsonSchema = {
  ...seedMetadata,
  properties: { ...seedMetadata.properties, total_candidates: { type: 'integer', minimum: 0 }, query_time_ms: { type: 'integer', minimum: 0 } },
};

const GRAPH_RAG_ANSWER: JsonSchema = {
  type: 'object',
  properties: {
    candidates: {
      type: 'array',
      items: { type: 'object', properties: { file: { type: 'string' }, relevance: { type: 'number', minimum: 0, maximum: 1 }, content: { type: 'string' } }, required: ['file', 'relevance', 'content'] },
    },
    metadata: METADATA,
  },
  required: ['candidates', 'metadata'],
};

const SEARCH_ANSWER: JsonSchema = {
  type: 'object',
  properties: {
    results: {
      type: 'array',
      items: {
        type: 'object',
        properties: { file: { type: 'string' }, start_line: { type: 'integer' }, end_line: { type: 'integer' }, score: { type: 'number' }, content: { type: 'string' } },
        required: ['file', 'start_line', 'end_line', 'score', 'content'],
      },
    },
    mode: { enum: ['hybrid', 'keyword', 'vector'] },
    total: { type: 'integer', minimum: 0 },
    query_time_ms: { type: 'integer', minimum: 0 },
  },
  required: ['results', 'mode', 'total', 'query_time_ms'],
};

const CHAIN_SYMBOL = { type: 'object', properties: { name: { type: 'string' }, kind: { type: 'string' }, container: { type: 'string' }, file: { type: 'string' }, line: { type: 'integer' } }, required: ['name', 'file', 'line'] };
const CHAIN_STEP = { ...CHAIN_SYMBOL, properties: { ...CHAIN_SYMBOL.properties, depth: { type: 'integer', minimum: 1 }, via: { type: 'string' } }, required: ['name', 'file', 'line', 'depth', 'via'] };
const CALL_CHAIN_ANSWER: JsonSchema = {
  type: 'object',
  properties: { symbol: { type: 'string' }, definitions: { type: 'array', items: CHAIN_SYMBOL }, callers: { type: 'array', items: CHAIN_STEP }, callees: { type: 'array', items: CHAIN_STEP }, metadata: METADATA },
  required: ['symbol', 'definitions', 'callers', 'callees', 'metadata'],
};

const READ_ONLY = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

/** Runs an operation; a bad argument becomes invalid-params, a missing symbol a tool failure. */
async function answer(run: () => Promise<object>) {
  try {
    return success({ ...(await run()) });
  } catch (error) {
    if (error instanceof ArgumentError) throw new InvalidArgumentsError(error.message, { issues: error.issues });
    if (error instanceof SymbolNotFoundError) return failure({ error: { code: 'symbol_not_found', message: error.message } });
    throw error;
  }
}

export function codeIntelSuite(deps: CodeIntelSuiteDeps): ToolSuite {
  const intel = 'intel' in deps ? deps.intel : createCodeIntel(deps);
  const tools: SuiteTool[] = [
    {
      name: 'ci_graph_rag',
      description: [
        'Find the code that answers a question: vector and keyword (BM25) hits fused by reciprocal rank, expanded fusion_depth hops over the code graph (CKB\'s call graph and references when available, else the local import graph), trimmed to a token budget.',
        'Answers {candidates:[{file, relevance, content}], metadata:{ckb_available, ckb_fallback_reason?, ckb_last_error?, ckb_cooldown_remaining_s?, fallback_mode?, fusion_depth, total_candidates, query_time_ms}}.',
        'fusion_depth 0 is vector search only.',
      ].join(' '),
      inputSchema: jsonSchemaOf(graphRagArgsSchema),
      outputSchema: orError(GRAPH_RAG_ANSWER),
      annotations: { title: 'Graph-RAG code search', ...READ_ONLY },
      handler: (args) => answer(() => intel.graphRag(args)),
    },
    {
      name: 'ci_search',
      description: 'Search code chunks by keywords (BM25), by vector, or both fused (hybrid, default). Answers chunks with file, lines, score and content; path_prefix limits to a folder.',
      inputSchema: jsonSchemaOf(searchArgsSchema),
      outputSchema: orError(SEARCH_ANSWER),
      annotations: { title: 'Search code', ...READ_ONLY },
      handler: (args) => answer(() => intel.search(args)),
    },
    {
      name: 'ci_call_chain',
      description: 'Who calls a function or method (and who calls those), and what it calls, up to depth calls away; from CKB when available, else the local call graph. "Container.method" narrows to a method; file narrows to one definition.',
      inputSchema: jsonSchemaOf(callChainArgsSchema),
      outputSchema: orError(CALL_CHAIN_ANSWER),
      annotations: { title: 'Call chain', ...READ_ONLY },
      handler: (args) => answer(() => intel.callChain(args)),
    },
  ];
  return {
    name: 'code-intel',
    description: 'Code intelligence over the workspace: graph-RAG with CKB fallback (seed 001), code search, call chains.',
    tools,
  };
}
