/**
 * The request of `POST /v1/chat/completions` in OpenAI's wire format, bounded. Unknown fields
 * (temperature, top_p, user, ...) pass through unread: clients send them and the offline model
 * has no use for them.
 */
import { z } from 'zod';

/** Bounds of one request; each has a default, and `createModelApp` takes others. */
export interface ModelLimits {
  /** Most messages in one conversation. Default 256. */
  maxMessages: number;
  /** Most tools offered in one request. Default 64. */
  maxTools: number;
  /** Most properties one tool's parameters schema may declare, at any level. Default 64. */
  maxToolProperties: number;
}

export const DEFAULT_MODEL_LIMITS: ModelLimits = { maxMessages: 256, maxTools: 64, maxToolProperties: 64 };

const TextPart = z.looseObject({ type: z.literal('text'), text: z.string() });
/** Message content: a string or text parts (images and audio are refused: the offline model reads text). */
const Content = z.union([z.string(), z.array(TextPart).max(256)]);

const ToolCall = z.looseObject({
  id: z.string().min(1).max(128),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string().min(1).max(64), arguments: z.string() }),
});

const SystemMessage = z.looseObject({ role: z.enum(['system', 'developer']), content: Content, name: z.string().max(64).optional() });
const UserMessage = z.looseObject({ role: z.literal('user'), content: Content, name: z.string().max(64).optional() });
const AssistantMessage = z.looseObject({
  role: z.literal('assistant'),
  content: Content.nullish(),
  tool_calls: z.array(ToolCall).max(128).optional(),
  name: z.string().max(64).optional(),
});
const ToolMessage = z.looseObject({ role: z.literal('tool'), content: Content, tool_call_id: z.string().min(1).max(128) });

export const ChatMessage = z.discriminatedUnion('role', [SystemMessage, UserMessage, AssistantMessage, ToolMessage]);
export type ChatMessage = z.infer<typeof ChatMessage>;

/** A JSON Schema property as far as the offline model reads it to build arguments. */
export interface PropertySchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  items?: PropertySchema;
  properties?: Record<string, PropertySchema>;
  required?: string[];
  description?: string;
}

const JSON_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'] as const;
const PropertySchema: z.ZodType<PropertySchema> = z.lazy(() =>
  z.looseObject({
    type: z.union([z.enum(JSON_TYPES), z.array(z.enum(JSON_TYPES)).max(7)]).optional(),
    enum: z.array(z.unknown()).min(1).max(256).optional(),
    const: z.unknown().optional(),
    default: z.unknown().optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    minItems: z.number().int().min(0).optional(),
    items: PropertySchema.optional(),
    properties: z.record(z.string().max(64), PropertySchema).optional(),
    required: z.array(z.string()).max(256).optional(),
    description: z.string().max(4096).optional(),
  }),
);

/** Function parameters: a JSON Schema of an object, whose `required` names declared properties. */
const Parameters = z
  .looseObject({
    type: z.literal('object'),
    properties: z.record(z.string().max(64), PropertySchema).default({}),
    required: z.array(z.string()).max(256).optional(),
  })
  .refine((schema) => (schema.required ?? []).every((name) => Object.hasOwn(schema.properties, name)), {
    message: 'every name in `required` must be a declared property',
    path: ['required'],
  });

export const FunctionTool = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a function name is 1-64 letters, digits, _ or -'),
    description: z.string().max(4096).optional(),
    parameters: Parameters.optional(),
    strict: z.boolean().nullish(),
  }),
});
export type FunctionTool = z.infer<typeof FunctionTool>;

const ToolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string().min(1).max(64) }) }),
]);
export type ToolChoice = z.infer<typeof ToolChoice>;

/** `response_format`; `json_schema` needs its `{name, schema?, strict?}` as OpenAI's API does. */
const ResponseFormat = z
  .looseObject({
    type: z.enum(['text', 'json_object', 'json_schema']),
    json_schema: z
      .looseObject({
        name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a schema name is 1-64 letters, digits, _ or -'),
        description: z.string().max(4096).optional(),
        schema: z.record(z.string(), z.unknown()).optional(),
        strict: z.boolean().nullish(),
      })
      .optional(),
  })
  .refine((format) => format.type !== 'json_schema' || format.json_schema !== undefined, { message: 'response_format json_schema needs its json_schema: {name, schema}', path: ['json_schema'] });

/** The request schema under the given limits (tool names must be unique and `tool_choice` must name one). */
export function chatCompletionRequest(limits: ModelLimits = DEFAULT_MODEL_LIMITS) {
  return z
    .looseObject({
      model: z.string().min(1).max(256),
      messages: z.array(ChatMessage).min(1, 'messages must hold at least one message').max(limits.maxMessages, `at most ${limits.maxMessages} messages`),
      tools: z.array(FunctionTool).max(limits.maxTools, `at most ${limits.maxTools} tools`).nullish(),
      tool_choice: ToolChoice.nullish(),
      parallel_tool_calls: z.boolean().nullish(),
      stream: z.boolean().nullish(),
      stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
      max_tokens: z.number().int().positive().nullish(),
      max_completion_tokens: z.number().int().positive().nullish(),
      response_format: ResponseFormat.nullish(),
    })
    .superRefine((request, ctx) => {
      const names = (request.tools ?? []).map((tool) => tool.function.name);
      if (new Set(names).size !== names.length) ctx.addIssue({ code: 'custom', path: ['tools'], message: 'tool names must be unique' });
      (request.tools ?? []).forEach((tool, index) => {
        const count = countProperties(tool.function.parameters?.properties ?? {});
        if (count > limits.maxToolProperties) ctx.addIssue({ code: 'custom', path: ['tools', index, 'function', 'parameters'], message: `at most ${limits.maxToolProperties} properties per tool (this one declares ${count})` });
      });
      const choice = request.tool_choice;
      if (typeof choice === 'object' && choice !== null && !names.includes(choice.function.name)) {
        ctx.addIssue({ code: 'custom', path: ['tool_choice'], message: `tool_choice names '${choice.function.name}', which is not among the tools` });
      }
    });
}
export type ChatCompletionRequest = z.infer<ReturnType<typeof chatCompletionRequest>>;

/** Properties declared at every level (nested objects and array items included). */
function countProperties(properties: Record<string, PropertySchema>): number {
  let count = 0;
  const stack: PropertySchema[] = Object.values(properties);
  while (stack.length > 0) {
    const schema = stack.pop() as PropertySchema;
    count += 1;
    if (schema.properties) stack.push(...Object.values(schema.properties));
    if (schema.items) stack.push(schema.items);
  }
  return count;
}

/** The text of a message's content, parts joined. */
export function textOf(content: string | { text: string }[] | null | undefined): string {
  if (content === null || content === undefined) return '';
  return typeof content === 'string' ? content : content.map((part) => part.text).join('');
}
