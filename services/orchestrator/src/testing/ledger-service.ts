/**
 * A tool service of the test's own with one tool, `note_fact`, that records every call it
 * receives and every call it completes, by the call's `key`: what agent tests count to show that
 * no call was made again after it had completed.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { createLogger } from '@switchyard/logger';
import { createOfflineAuthor, createToolServiceApp, defaultFaults, type FaultKnobs, type ToolDefinition } from '@switchyard/tool-services';
import { TOOL_KEY } from './stack.js';

export interface LedgerCall {
  key: string;
  startedAt: number;
  /** When its reply was written (undefined: it never completed). */
  completedAt?: number;
}

export interface LedgerService {
  url: string;
  /** `TOOL_SERVICES` for a stack that calls it `ledger`. */
  toolEnv: Record<string, string>;
  calls: LedgerCall[];
  faults: FaultKnobs;
  /** Ms each call takes (default 0); change it live. */
  latency: { ms: number };
  /** Calls of a key made after one of its calls had completed. */
  repeatedAfterCompletion(): LedgerCall[];
  close(): Promise<void>;
}

export async function startLedgerService(): Promise<LedgerService> {
  const calls: LedgerCall[] = [];
  const latency = { ms: 0 };
  const faults = defaultFaults();
  const noteFact: ToolDefinition = {
    name: 'note_fact',
    description: 'Notes a fact under a key and answers with what it noted.',
    input: z.strictObject({ key: z.string().min(1).max(200), fact: z.string().max(2000).optional() }),
    streamsContent: false,
    run: async (_author, input) => {
      const { key, fact } = input as { key: string; fact?: string };
      const call: LedgerCall = { key, startedAt: Date.now() };
      calls.push(call);
      if (latency.ms > 0) await new Promise((resolve) => setTimeout(resolve, latency.ms));
      call.completedAt = Date.now();
      return { noted: key, fact: fact ?? null };
    },
  };
  const app = createToolServiceApp({ name: 'ledger_service', tools: [noteFact], author: createOfflineAuthor(), apiKeys: [TOOL_KEY], faults, logger: createLogger({ name: 'ledger', level: 'silent' }) });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    toolEnv: { TOOL_SERVICES: JSON.stringify({ ledger: url }) },
    calls,
    faults,
    latency,
    repeatedAfterCompletion: () =>
      calls.filter((call) => calls.some((other) => other !== call && other.key === call.key && other.completedAt !== undefined && other.completedAt <= call.startedAt)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
