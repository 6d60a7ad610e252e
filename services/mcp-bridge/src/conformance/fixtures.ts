/**
 * The fixtures the official MCP conformance suite (@modelcontextprotocol/conformance) calls by
 * name — its test_* tools, test:// resources and test_* prompts — served only when
 * MCP_CONFORMANCE_FIXTURES is on, so that the suite's scenarios exercise the bridge's own
 * transport, sessions, content shapes, progress and subscriptions rather than failing on a name
 * the bridge has no reason to have. Off (the default), none of this exists.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { failure, success, type SuiteTool, type ToolContentBlock, type ToolSuite } from '@switchyard/tool-suite';

/** A 1×1 red PNG and a silent 1-sample WAV: the smallest real files of their kinds. */
const RED_PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const SILENT_WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==';

/** URIs of the fixture resources a session may subscribe to. */
export const FIXTURE_SUBSCRIBABLE = new Set(['test://watched-resource']);

const blocksTool = (name: string, description: string, blocks: ToolContentBlock[]): SuiteTool => ({
  name,
  description,
  inputSchema: { type: 'object', properties: {} },
  handler: async () => ({ ...success({}), blocks }),
});

/** The conformance suite's fixture tools that need nothing from the client (no sampling, elicitation or logging). */
export function conformanceFixtureSuite(): ToolSuite {
  const tools: SuiteTool[] = [
    blocksTool('test_simple_text', 'Conformance fixture: answers one text block.', [{ type: 'text', text: 'This is a simple text response for testing.' }]),
    blocksTool('test_image_content', 'Conformance fixture: answers an image (a 1x1 red PNG).', [{ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' }]),
    blocksTool('test_audio_content', 'Conformance fixture: answers audio (a silent WAV).', [{ type: 'audio', data: SILENT_WAV, mimeType: 'audio/wav' }]),
    blocksTool('test_embedded_resource', 'Conformance fixture: answers an embedded text resource.', [
      { type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } },
    ]),
    blocksTool('test_multiple_content_types', 'Conformance fixture: answers text, an image and a resource.', [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } },
    ]),
    {
      name: 'test_error_handling',
      description: 'Conformance fixture: always fails as a tool (isError).',
      inputSchema: { type: 'object', properties: {} },
      handler: async () => ({ ...failure({}), blocks: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] }),
    },
    {
      name: 'test_tool_with_progress',
      description: 'Conformance fixture: reports progress 0, 50 and 100 of 100.',
      inputSchema: { type: 'object', properties: {} },
      handler: async (_args, context) => {
        for (const progress of [0, 50, 100]) {
          await context.reportProgress({ progress, total: 100 });
          if (progress < 100) await sleep(50, undefined, { signal: context.signal });
        }
        return { ...success({}), blocks: [{ type: 'text', text: 'Progress reported: 0, 50, 100 of 100' }] };
      },
    },
    {
      name: 'json_schema_2020_12_tool',
      description: 'Conformance fixture: an input schema with JSON Schema 2020-12 features, listed as written.',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
        properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
        additionalProperties: false,
      },
      handler: async (args) => ({ ...success({}), blocks: [{ type: 'text', text: `Received ${JSON.stringify(args)}` }] }),
    },
  ];
  return { name: 'conformance-fixtures', description: 'Fixtures of the MCP conformance suite (MCP_CONFORMANCE_FIXTURES).', tools };
}

/** The suite's fixture resources and prompts, on a session's McpServer. */
export function registerConformanceFixtures(mcp: McpServer): void {
  mcp.registerResource('test_static_text', 'test://static-text', { mimeType: 'text/plain', description: 'Conformance fixture: static text' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
  }));
  mcp.registerResource('test_static_binary', 'test://static-binary', { mimeType: 'image/png', description: 'Conformance fixture: static binary' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'image/png', blob: RED_PIXEL_PNG }],
  }));
  mcp.registerResource('test_watched', 'test://watched-resource', { mimeType: 'text/plain', description: 'Conformance fixture: a resource to subscribe to' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched resource content' }],
  }));
  mcp.registerResource('test_template', new ResourceTemplate('test://template/{id}/data', { list: undefined }), { mimeType: 'application/json', description: 'Conformance fixture: a template' }, (uri, { id }) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id: String(id), templateTest: true, data: `Data for ID: ${String(id)}` }) }],
  }));

  mcp.registerPrompt('test_simple_prompt', { description: 'Conformance fixture: a prompt without arguments' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));
  mcp.registerPrompt('test_prompt_with_arguments', { description: 'Conformance fixture: a prompt with arguments', argsSchema: { arg1: z.string().describe('First test argument'), arg2: z.string().describe('Second test argument') } }, ({ arg1, arg2 }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }],
  }));
  mcp.registerPrompt('test_prompt_with_embedded_resource', { description: 'Conformance fixture: a prompt embedding a resource', argsSchema: { resourceUri: z.string().describe('URI of the resource to embed') } }, ({ resourceUri }) => ({
    messages: [
      { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ],
  }));
  mcp.registerPrompt('test_prompt_with_image', { description: 'Conformance fixture: a prompt with an image' }, () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }));
}
