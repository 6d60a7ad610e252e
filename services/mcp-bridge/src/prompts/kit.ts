/**
 * What a prompt module exports: its name, title, description, its arguments as a zod shape
 * (strings, as MCP prompt arguments are; `completableString` adds their completions) and how it
 * renders. `registerPrompts` hands them to the SDK's McpServer, which checks the arguments.
 */
import { completable, type CompleteCallback } from '@modelcontextprotocol/sdk/server/completable.js';
import type { ShapeOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';

export type PromptShape = Record<string, z.ZodType<string | undefined>>;

export interface PromptDefinition<A extends PromptShape> {
  name: string;
  title: string;
  description: string;
  args: A;
  render(input: ShapeOutput<A>): GetPromptResult | Promise<GetPromptResult>;
}

export type CompleteString = (value: string, context?: { arguments?: Record<string, string> }) => string[] | Promise<string[]>;

/** `schema` with completions for its argument; the value typed so far is always a string here. */
export function completableString<T extends z.ZodType<string | undefined>>(schema: T, complete: CompleteString): T {
  // The SDK types the callback by the schema's input, which for these schemas is a string (or nothing yet).
  const callback = ((value: unknown, context?: { arguments?: Record<string, string> }) => complete(typeof value === 'string' ? value : '', context)) as CompleteCallback<T>;
  return completable(schema, callback);
}
