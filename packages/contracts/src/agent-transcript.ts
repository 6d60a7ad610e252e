/**
 * An agent step's transcript as the run API shows it: the conversation its model had, turn by
 * turn, with every tool call, its result, and the tokens spent. The first two messages (the
 * instructions and the prompt) are what the step's expressions gave when it started.
 */
import { z } from 'zod';

export const AgentUsage = z.object({ prompt_tokens: z.number().int().nonnegative(), completion_tokens: z.number().int().nonnegative() });
export type AgentUsage = z.infer<typeof AgentUsage>;

export const AgentToolCallView = z.object({
  id: z.string(),
  tool: z.string(),
  /** The arguments as the model wrote them (JSON text, not necessarily valid). */
  arguments: z.string(),
});

export const AgentMessage = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({
    role: z.literal('assistant'),
    turn: z.number().int().positive(),
    content: z.string().nullable(),
    tool_calls: z.array(AgentToolCallView),
    usage: AgentUsage,
    /** What this turn cost in USD, by its model's prices (absent when the model has none). */
    cost_usd: z.number().nonnegative().optional(),
    at: z.string(),
  }),
  z.object({
    role: z.literal('tool'),
    turn: z.number().int().positive(),
    call_id: z.string(),
    tool: z.string(),
    content: z.string(),
    is_error: z.boolean(),
    at: z.string(),
  }),
]);
export type AgentMessage = z.infer<typeof AgentMessage>;

export const AgentTranscriptView = z.object({
  model: z.string(),
  turns: z.number().int().nonnegative(),
  usage: AgentUsage,
  /** What the step's turns cost in USD, by their model's prices (0 when it has none). */
  cost_usd: z.number().nonnegative(),
  messages: z.array(AgentMessage),
});
export type AgentTranscriptView = z.infer<typeof AgentTranscriptView>;

/** A tool call's arguments or result in an event: the start of it, so that events stay small. */
export const EVENT_PREVIEW_CHARS = 500;
