/**
 * The `metadata` of graph-RAG answers (seed 001 §1 and §3.1): whether CKB was used, why not, for
 * how much longer not, how far the graph was expanded, how many candidates and how long it took.
 */
import type { CkbStatus } from './ckb/client.js';

/** Seed 001 §3.1, verbatim. */
export const MCP_OUTPUT_METADATA_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'mcp-output-metadata.schema.json',
  title: 'MCP Output Metadata',
  description: 'MCP 工具输出的 metadata 字段规格',
  type: 'object',
  properties: {
    ckb_available: {
      type: 'boolean',
      description: 'CKB MCP 是否可用',
    },
    ckb_fallback_reason: {
      type: 'string',
      enum: ['connection_timeout', 'mcp_error', 'health_check_failed', 'cooldown', 'disabled'],
      description: 'CKB 降级原因（仅当 ckb_available = false）',
    },
    ckb_last_error: {
      type: 'string',
      description: 'CKB 最近的错误信息',
    },
    ckb_cooldown_remaining_s: {
      type: 'integer',
      minimum: 0,
      maximum: 60,
      description: '降级冷却剩余秒数',
    },
    fallback_mode: {
      type: 'string',
      enum: ['local_graph', 'vector_only'],
      description: '降级模式',
    },
    fusion_depth: {
      type: 'integer',
      minimum: 0,
      maximum: 5,
      description: '融合查询图扩展深度',
    },
  },
  required: ['ckb_available', 'fusion_depth'],
  if: {
    properties: { ckb_available: { const: false } },
  },
  then: {
    required: ['ckb_fallback_reason'],
  },
} as const;

export interface AnswerMetadata {
  ckb_available: boolean;
  ckb_fallback_reason?: 'connection_timeout' | 'mcp_error' | 'health_check_failed' | 'cooldown' | 'disabled';
  ckb_last_error?: string;
  ckb_cooldown_remaining_s?: number;
  fallback_mode?: 'local_graph' | 'vector_only';
  fusion_depth: number;
  total_candidates: number;
  query_time_ms: number;
}

/** The metadata object, its keys in the seed's order and only those that apply. */
export function answerMetadata(status: CkbStatus, facts: { fusion_depth: number; total_candidates: number; query_time_ms: number }): AnswerMetadata {
  const fallback = !status.available;
  return {
    ckb_available: status.available,
    ...(fallback ? { ckb_fallback_reason: status.reason ?? 'health_check_failed' } : {}),
    ...(fallback && status.lastError ? { ckb_last_error: status.lastError } : {}),
    ...(fallback && status.cooldownRemainingS !== undefined ? { ckb_cooldown_remaining_s: status.cooldownRemainingS } : {}),
    ...(fallback ? { fallback_mode: facts.fusion_depth === 0 ? ('vector_only' as const) : ('local_graph' as const) } : {}),
    fusion_depth: facts.fusion_depth,
    total_candidates: facts.total_candidates,
    query_time_ms: facts.query_time_ms,
  };
}
