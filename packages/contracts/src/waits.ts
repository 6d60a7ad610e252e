/**
 * Wire shapes of what runs wait for: approving an agent's tool call, sending a signal, and the
 * inbox that lists both across runs.
 */
import { z } from 'zod';

/** `POST /v1/runs/{id}/approvals/{call_id}`. */
export const ApprovalRequest = z.strictObject({
  approve: z.boolean().describe('true: the call is made (with `arguments` when given); false: the model is told it was refused'),
  arguments: z.record(z.string(), z.unknown()).optional().describe("Edited arguments, checked against the tool's schema (400 naming the field)"),
  note: z.string().max(2000).optional().describe('Why; the model reads it with a refusal'),
});
export type ApprovalRequest = z.infer<typeof ApprovalRequest>;

export const ApprovalAccepted = z.object({ run_id: z.string(), call_id: z.string(), approve: z.boolean(), status: z.enum(['recorded']) });
export type ApprovalAccepted = z.infer<typeof ApprovalAccepted>;

/** `POST /v1/runs/{id}/signals/{name}`: `duplicate` when one of that name was received before (the first stands). */
export const SignalAccepted = z.object({ run_id: z.string(), signal: z.string(), status: z.enum(['recorded', 'duplicate']) });
export type SignalAccepted = z.infer<typeof SignalAccepted>;

export const InboxItem = z.object({
  run_id: z.string(),
  pipeline: z.string(),
  stage: z.string(),
  kind: z.enum(['approval', 'signal']),
  /** The call id of an approval, the name of a signal. */
  key: z.string(),
  created_at: z.string(),
  timeout_at: z.string().nullable(),
  /** Approvals: the call as the model asked for it, and its reason when it gave one. */
  tool: z.string().optional(),
  arguments: z.record(z.string(), z.unknown()).optional().describe("The call's arguments as the model gave them, as an object: the shape an approval's `arguments` takes, so an edit can start from it"),
  reason: z.string().nullable().optional().describe("The model's reason: in a listing, its first 500 characters (`reason_truncated` when cut); whole at `GET answer_url`"),
  reason_truncated: z.boolean().optional().describe('The reason was cut to its first 500 characters in this listing; `GET answer_url` gives it whole'),
  /** The form of the answer: the tool's JSON Schema (approvals' `arguments`), or the signal's payload schema. */
  schema: z.record(z.string(), z.unknown()).nullable(),
  /** Where the answer goes. */
  answer_url: z.string(),
});
export type InboxItem = z.infer<typeof InboxItem>;

export const InboxList = z.object({
  items: z.array(InboxItem),
  offset: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  next_offset: z.number().int().nullable(),
  truncated: z.boolean().optional().describe('The page stopped before `limit` items because its bytes would have passed the listing budget (`LIST_PAGE_MAX_BYTES`): ask again from `next_offset`'),
});
export type InboxList = z.infer<typeof InboxList>;
