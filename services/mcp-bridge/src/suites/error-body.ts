/**
 * The error body of a failed call — `{error:{code,message,details}}`, what every HTTP service of
 * the project answers — and output schemas that admit it beside a tool's answer.
 */
import { z } from 'zod';
import { jsonSchemaOf, type JsonSchema } from '@switchyard/tool-suite';

export const ToolErrorBody = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
});

/**
 * A tool's published output schema: its answer, or the error body of a failed call. The SDK's
 * client checks `structuredContent` against it whether or not the result is an error.
 */
export function outputSchemaOf(schema: z.ZodType): JsonSchema {
  return admittingErrorBody(jsonSchemaOf(schema));
}

/** `schema` (a JSON Schema of an answer) or the error body of a failed call. */
export function admittingErrorBody(schema: JsonSchema): JsonSchema {
  return { type: 'object', anyOf: [schema, jsonSchemaOf(ToolErrorBody)] };
}
