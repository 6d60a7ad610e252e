/**
 * The part of CKB's MCP tools this package uses, as CKB names them: getStatus, searchSymbols,
 * getCallGraph and findReferences. Replies are JSON in the tool result's text (or its
 * structuredContent), possibly wrapped in an envelope's `data`; unknown fields are kept.
 */
import { z } from 'zod';

export const CKB_TOOLS = { status: 'getStatus', searchSymbols: 'searchSymbols', callGraph: 'getCallGraph', references: 'findReferences' } as const;

export const ckbLocation = z.looseObject({ fileId: z.string(), startLine: z.number().int().optional() });

export const ckbSymbol = z.looseObject({
  stableId: z.string(),
  name: z.string(),
  kind: z.string().optional(),
  location: ckbLocation.optional(),
});
export type CkbSymbol = z.infer<typeof ckbSymbol>;

export const statusReply = z.looseObject({ status: z.string().optional(), healthy: z.boolean().optional() });
export const searchSymbolsReply = z.looseObject({ symbols: z.array(ckbSymbol) });
export const findReferencesReply = z.looseObject({ references: z.array(z.looseObject({ location: ckbLocation, kind: z.string().optional() })) });
export const callGraphReply = z.looseObject({
  root: z.string().optional(),
  nodes: z.array(
    z.looseObject({
      id: z.string(),
      name: z.string().optional(),
      kind: z.string().optional(),
      location: ckbLocation.optional(),
      role: z.enum(['root', 'caller', 'callee']).optional(),
      depth: z.number().int().optional(),
    }),
  ),
  edges: z.array(z.looseObject({ from: z.string(), to: z.string() })).default([]),
});
export type CallGraphReply = z.infer<typeof callGraphReply>;

const HEALTHY = new Set(['healthy', 'ok', 'ready', 'available']);

/** Whether a getStatus reply says the backend can answer. */
export function isHealthy(reply: z.infer<typeof statusReply>): boolean {
  return reply.healthy === true || (reply.status !== undefined && HEALTHY.has(reply.status.toLowerCase()));
}
