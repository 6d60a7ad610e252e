/**
 * `graph-rag --query "..." [--format json|text] [--top-k N] [--budget N] [--fusion-depth N]
 * [--root DIR] [--config FILE]`: one ci_graph_rag answer for a workspace, as seed 001's contract
 * tests call it (also installed as `graph-rag.sh`). Exit codes: 0 answered, 2 bad arguments or
 * configuration, 1 anything else.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs as parseCommandLine } from 'node:util';
import { ArgumentError } from '../args.js';
import { BUNDLED_CKB } from '../ckb/bundled.js';
import { createCodeIntel } from '../code-intel.js';
import { codeIntelConfigSchema, type CkbIntegrationInput, type EmbeddingConfig } from '../config.js';
import type { GraphRagAnswer } from '../graph-rag.js';
import { childEnvironment, loadEnv } from './env.js';

const USAGE = 'usage: graph-rag --query "text" [--format json|text] [--top-k N] [--budget N] [--fusion-depth 0-5] [--root DIR] [--config FILE]';

class UsageError extends Error {}

function numberOption(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Number(value);
}

async function configuration(file: string | undefined, env: ReturnType<typeof loadEnv>): Promise<{ ckb?: CkbIntegrationInput; embedding?: EmbeddingConfig }> {
  let fromFile: ReturnType<typeof codeIntelConfigSchema.parse> = {};
  if (file) {
    const parsed = codeIntelConfigSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
    if (!parsed.success) throw new UsageError(`config ${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    fromFile = parsed.data;
  }
  const [command, ...args] = env.CKB_MCP_COMMAND?.trim().split(/\s+/) ?? [];
  // No CKB named anywhere: the bundled server, started as a child like any other.
  const named = Boolean(command || env.CKB_MCP_URL || fromFile.ckb_integration?.command || fromFile.ckb_integration?.url);
  const ckb: CkbIntegrationInput = {
    ...fromFile.ckb_integration,
    ...(named ? {} : { ...BUNDLED_CKB, args: [...BUNDLED_CKB.args] }),
    ...(command ? { command, args, url: undefined } : {}),
    ...(env.CKB_MCP_URL ? { url: env.CKB_MCP_URL, command: undefined } : {}),
    ...(env.CKB_INTEGRATION_ENABLED !== undefined ? { enabled: env.CKB_INTEGRATION_ENABLED } : {}),
    ...(env.CKB_TIMEOUT_MS ? { timeout_ms: env.CKB_TIMEOUT_MS } : {}),
    env: { ...childEnvironment(), ...fromFile.ckb_integration?.env },
  };
  const embedding: EmbeddingConfig | undefined = env.CODE_INTEL_EMBEDDING_URL
    ? { provider: 'openai-compatible', url: env.CODE_INTEL_EMBEDDING_URL, model: env.CODE_INTEL_EMBEDDING_MODEL, ...(env.CODE_INTEL_EMBEDDING_API_KEY ? { api_key: env.CODE_INTEL_EMBEDDING_API_KEY } : {}) }
    : fromFile.embedding;
  return { ckb, ...(embedding ? { embedding } : {}) };
}

function asText(answer: GraphRagAnswer): string {
  const lines = answer.candidates.map((c, i) => `${i + 1}. ${c.file}  (relevance ${c.relevance})\n${c.content.replace(/^/gm, '    ')}`);
  const m = answer.metadata;
  const ckb = m.ckb_available ? 'CKB graph' : `local fallback: ${m.ckb_fallback_reason}${m.ckb_cooldown_remaining_s !== undefined ? `, ${m.ckb_cooldown_remaining_s}s cooldown left` : ''}`;
  return `${lines.join('\n\n')}\n\n${answer.candidates.length} of ${m.total_candidates} candidates, fusion depth ${m.fusion_depth}, ${ckb}, ${m.query_time_ms} ms\n`;
}

async function main(): Promise<number> {
  const env = loadEnv();
  const { values } = parseCommandLine({
    options: {
      query: { type: 'string', short: 'q' },
      format: { type: 'string', default: 'text' },
      'top-k': { type: 'string' },
      budget: { type: 'string' },
      'fusion-depth': { type: 'string' },
      root: { type: 'string' },
      config: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values.format !== 'json' && values.format !== 'text') throw new UsageError('--format must be json or text');
  const root = path.resolve(values.root ?? env.CODE_INTEL_ROOT ?? process.cwd());
  const intel = createCodeIntel({
    root,
    ...(env.CODE_INTEL_DATA_DIR ? { dataDir: path.resolve(env.CODE_INTEL_DATA_DIR) } : {}),
    ...(await configuration(values.config ?? env.CODE_INTEL_CONFIG, env)),
  });
  try {
    const answer = await intel.graphRag({
      query: values.query,
      ...(values['top-k'] !== undefined ? { top_k: numberOption(values['top-k']) } : {}),
      ...(values.budget !== undefined ? { budget: numberOption(values.budget) } : {}),
      ...(values['fusion-depth'] !== undefined ? { fusion_depth: numberOption(values['fusion-depth']) } : {}),
    });
    process.stdout.write(values.format === 'json' ? `${JSON.stringify(answer, null, 2)}\n` : asText(answer));
    return 0;
  } finally {
    await intel.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const usage = error instanceof ArgumentError || error instanceof UsageError || (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'));
    process.stderr.write(`graph-rag: ${error instanceof Error ? error.message : String(error)}\n${usage ? `${USAGE}\n` : ''}`);
    process.exitCode = usage ? 2 : 1;
  },
);
