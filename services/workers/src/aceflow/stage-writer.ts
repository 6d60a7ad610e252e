/**
 * The stage writer as the AceFlow worker calls it: `generate_stage_document` on the writing
 * service, streamed, through the resilient tool client.
 */
import { STAGE_DOCUMENT_TOOL, StageDocumentOutput, type StageDocumentInput, type ToolServicesConfig } from '@switchyard/contracts';
import { ToolProtocolError, ToolServiceClient, type ToolClientOptions } from '@switchyard/tool-client';
import type { StageCall } from '../tools.js';

export interface StageWriter {
  write(args: StageDocumentInput, call: StageCall): Promise<StageDocumentOutput>;
}

export function createHttpStageWriter(config: ToolServicesConfig, overrides: Partial<Omit<ToolClientOptions, 'service' | 'baseUrl'>> = {}): StageWriter {
  const writing = config.services.writing;
  const client = new ToolServiceClient({ timeoutMs: writing.timeoutMs, apiKey: config.apiKey, ...overrides, service: 'writing', baseUrl: writing.url });
  return {
    async write(args, call) {
      const reply = await client.call({ tool: STAGE_DOCUMENT_TOOL, args: args as Record<string, unknown>, mode: 'stream', ...call });
      const parsed = StageDocumentOutput.safeParse(reply);
      if (!parsed.success) throw new ToolProtocolError({ service: 'writing', tool: STAGE_DOCUMENT_TOOL, code: 'invalid_reply', message: 'The stage writer answered something that is not a stage document', details: { issues: parsed.error.issues } });
      return parsed.data;
    },
  };
}
