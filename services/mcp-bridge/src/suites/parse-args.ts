/**
 * A suite tool's arguments through its zod schema: they have passed the published JSON Schema
 * already, and parsing again applies defaults and gives types; what still fails is a bad argument,
 * answered as the tool's `isError` result by the registry.
 */
import type { z } from 'zod';
import { describeZodError } from '@switchyard/http-kit';
import { InvalidArgumentsError } from '@switchyard/tool-suite';

export function parseArgs<S extends z.ZodType>(schema: S, args: Record<string, unknown>): z.output<S> {
  const parsed = schema.safeParse(args);
  if (!parsed.success) {
    const { message, details } = describeZodError(parsed.error);
    throw new InvalidArgumentsError(message, details);
  }
  return parsed.data;
}
