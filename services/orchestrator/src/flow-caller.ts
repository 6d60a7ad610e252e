/**
 * Who starts a run, for flow control: the request's API key (its id) is the key its runs share
 * queues fairly under, unless the pipeline names another (docs/PIPELINES.md, "Flow control").
 */
import type { Response } from 'express';
import { z } from 'zod';
import { callerKey, PRIORITY_FIRST, PRIORITY_LAST, type CallerFlow } from '@switchyard/pipeline';

/** `?priority=` of the routes that start one run: 1 goes first, 9 last. */
export const PriorityQuery = z.coerce
  .number()
  .int()
  .min(PRIORITY_FIRST)
  .max(PRIORITY_LAST)
  .optional()
  .describe('Its priority class: 1 goes first, 9 last (default 3, ahead of batch work at 6)');

/** The caller of a request: its API key's id (from the auth middleware) and the priority it asked for. */
export function callerOf(res: Response, priority: number | undefined): CallerFlow {
  const keyId = typeof res.locals.keyId === 'string' ? res.locals.keyId : undefined;
  return { key: callerKey(keyId), ...(priority === undefined ? {} : { priority }) };
}
