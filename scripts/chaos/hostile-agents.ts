/**
 * The hostile scenario's attacks on the surfaces added with agents and people in the loop, sent
 * while stories run (see hostile.ts): a read key answering through MCP elicitation, a pipeline
 * fanning out into itself, an agent turn of 32 calls with a 200 KB reason filling the inbox,
 * agent runs on a model whose stream hangs beside ordinary agent runs, and a flood of wrong keys
 * from the address a valid key uses. Each attack is bounded in count and time, on 127.0.0.1.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startScriptedModel, type ScriptedModel } from '@switchyard/models/testing';
import { until, type ChaosStack } from './harness.js';

/** A key holding `read` only, for the elicitation attack. */
export const READ_KEY = `chaos-read-${Date.now().toString(36)}-0123456789abcdef`;
/** Child runs one tree may start in the scenario's stack (RUN_MAX_DESCENDANTS), kept small on a shared machine. */
export const CHAOS_DESCENDANTS = 40;
/** The model stream idle deadline in the scenario's stack (LLM_STREAM_IDLE_MS). */
export const CHAOS_STREAM_IDLE_MS = 2000;
const CALLS = 32;
const REASON = `Everything must be looked up. ${'because '.repeat(25_000)}`;

interface Models {
  /** MODELS for the stack: `hung` (one chunk, then only comments) and `reasoner` (32 calls, a 200 KB reason). */
  env: string;
  close(): Promise<void>;
}

/** The two hostile models, on loopback ports of their own. */
export async function startHostileModels(): Promise<Models> {
  const open = new Set<ServerResponse>();
  const hung: Server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    open.add(res);
    res.write(`data: ${JSON.stringify({ id: 'h', object: 'chat.completion.chunk', created: 0, model: 'hung-1', choices: [{ index: 0, delta: { role: 'assistant', content: 'Let me think' }, finish_reason: null }] })}\n\n`);
    const keepAlive = setInterval(() => res.write(': thinking\n\n'), 500);
    res.on('close', () => {
      clearInterval(keepAlive);
      open.delete(res);
    });
  });
  await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
  const reasoner: ScriptedModel = await startScriptedModel({
    script: (request) => (request.messages.some((m) => m.role === 'tool') ? { content: 'done' } : { content: REASON, toolCalls: Array.from({ length: CALLS }, (_, i) => ({ name: 'search_relevant_information', arguments: JSON.stringify({ topic: `t${i}`, depth: 1 }) })) }),
  });
  const hungUrl = `http://127.0.0.1:${(hung.address() as AddressInfo).port}/v1`;
  return {
    env: JSON.stringify({ hung: { base_url: hungUrl, model: 'hung-1' }, reasoner: { base_url: reasoner.baseUrl, model: 'reasoner' } }),
    async close() {
      for (const res of open) res.destroy();
      await new Promise((resolve) => hung.close(resolve));
      await reasoner.close();
    },
  };
}

/** The pipelines the attacks run. */
export const AGENT_ATTACK_PIPELINES = [
  { name: 'hx-fan', input: { type: 'object', required: ['level'], properties: { level: { type: 'integer' } } }, steps: { each: { map: '[1..4]', when: 'input.level < 5', pipeline: 'hx-fan', args: { level: 'input.level + 1' } } } },
  { name: 'hx-gate', steps: { gate: { wait: { signal: 'go', schema: { type: 'object', required: ['ok'], properties: { ok: { type: 'boolean' } } }, timeout: '10m' } } }, output: 'steps.gate' },
  { name: 'hx-reasoner', steps: { act: { agent: { model: 'reasoner', prompt: "'go'", tools: [{ tool: 'search_relevant_information', approval: 'required' }], max_turns: 2 } } } },
  { name: 'hx-hung', steps: { act: { agent: { model: 'hung', prompt: "'think'", max_turns: 1 } } } },
  { name: 'hx-agent', steps: { act: { agent: { prompt: "'Say something about tides.'", max_turns: 2 } } } },
];

interface RunView {
  status: string;
  error: { code: string; message: string } | null;
}

async function ended(stack: ChaosStack, runId: string, timeoutMs: number): Promise<RunView | undefined> {
  let view: RunView | undefined;
  await until(async () => {
    view = (await stack.get<RunView>(`/v1/runs/${runId}`)).body;
    return ['completed', 'failed', 'cancelled'].includes(view.status);
  }, timeoutMs, 250);
  return view;
}

/** A read key's client that accepts every form: it must be asked nothing, and the gate must keep waiting. */
async function readKeyElicitation(stack: ChaosStack, mcpUrl: string): Promise<{ asked: number; gate: string }> {
  const { run_id: gate } = await stack.post<{ run_id: string }>('/v1/pipelines/hx-gate/runs', {});
  await until(async () => (await stack.get<{ total: number }>(`/v1/inbox?run_id=${gate}`)).body.total === 1, 30_000, 200);
  let asked = 0;
  const client = new Client({ name: 'chaos-read', version: '1' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, () => {
    asked += 1;
    return { action: 'accept', content: { ok: true } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${READ_KEY}` } } }));
  try {
    await client.callTool({ name: 'wait_for_run', arguments: { run_id: gate, timeout_s: 3 } });
  } finally {
    await client.close();
  }
  const view = (await stack.get<RunView>(`/v1/runs/${gate}`)).body;
  await fetch(`${stack.apiUrl}/v1/runs/${gate}`, { method: 'DELETE', headers: stack.headers });
  return { asked, gate: view.status };
}

/** The inbox with 32 calls of a 200 KB reason waiting: the page's bytes and how long it took. */
async function hugeReason(stack: ChaosStack): Promise<{ page_bytes: number; page_ms: number; longest_reason: number }> {
  const { run_id } = await stack.post<{ run_id: string }>('/v1/pipelines/hx-reasoner/runs', {});
  await until(async () => (await stack.get<{ total: number }>(`/v1/inbox?run_id=${run_id}`)).body.total === CALLS, 60_000, 250);
  const started = performance.now();
  const res = await fetch(`${stack.apiUrl}/v1/inbox?limit=200`, { headers: stack.headers, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  const page_ms = Math.round(performance.now() - started);
  const items = (JSON.parse(text) as { items?: { reason?: string | null }[] }).items ?? [];
  await fetch(`${stack.apiUrl}/v1/runs/${run_id}`, { method: 'DELETE', headers: stack.headers });
  return { page_bytes: text.length, page_ms, longest_reason: Math.max(0, ...items.map((item) => item.reason?.length ?? 0)) };
}

/** A flood of wrong keys from 127.0.0.1 with the valid key's requests among them: none of these may be refused. */
async function wrongKeyFlood(stack: ChaosStack): Promise<{ wrong_keys: number; valid_refused: number }> {
  const wrong = Array.from({ length: 200 }, (_, i) => fetch(`${stack.apiUrl}/v1/runs?limit=1`, { headers: { authorization: `Bearer wrong-${i}` }, signal: AbortSignal.timeout(30_000) }).then((res) => res.arrayBuffer()));
  const valid = Array.from({ length: 20 }, () => fetch(`${stack.apiUrl}/v1/runs?limit=1`, { headers: stack.headers, signal: AbortSignal.timeout(30_000) }).then(async (res) => (await res.arrayBuffer(), res.status)));
  await Promise.all(wrong);
  const statuses = await Promise.all(valid);
  const after = await Promise.all(Array.from({ length: 5 }, async () => (await fetch(`${stack.apiUrl}/v1/runs?limit=1`, { headers: stack.headers })).status));
  return { wrong_keys: wrong.length, valid_refused: [...statuses, ...after].filter((status) => status !== 200).length };
}

/** Every agent attack at once; figures, and whether each held. */
export async function agentAttacks(stack: ChaosStack, mcpUrl: string): Promise<{ passed: boolean; figures: Record<string, unknown> }> {
  const fan = stack.post<{ run_id: string }>('/v1/pipelines/hx-fan/runs', { level: 0 }).then(async ({ run_id }) => ({ run_id, view: await ended(stack, run_id, 300_000) }));
  const hung = Array.from({ length: 4 }, () => stack.post<{ run_id: string }>('/v1/pipelines/hx-hung/runs', {}).then(({ run_id }) => ended(stack, run_id, 120_000)));
  const agents = Array.from({ length: 4 }, () => stack.post<{ run_id: string }>('/v1/pipelines/hx-agent/runs', {}).then(({ run_id }) => ended(stack, run_id, 120_000)));
  const [elicitation, inbox, flood] = [await readKeyElicitation(stack, mcpUrl), await hugeReason(stack), await wrongKeyFlood(stack)];
  const fanned = await fan;
  const fanRuns = (await stack.get<{ runs: unknown[] }>('/v1/runs?pipeline=hx-fan&limit=200')).body.runs.length;
  const hungViews = await Promise.all(hung);
  const agentViews = await Promise.all(agents);
  const figures = {
    read_key_elicitation: { forms_asked: elicitation.asked, gate_after: elicitation.gate },
    self_fan_out: { status: fanned.view?.status ?? 'not ended', bounded_by: /child_budget_exceeded/.test(JSON.stringify(fanned.view?.error)) ? 'child_budget_exceeded' : JSON.stringify(fanned.view?.error)?.slice(0, 200), runs: fanRuns, unbounded_would_be: 4 + 16 + 64 + 256 + 1024 },
    huge_reason_inbox: inbox,
    hung_model_runs: hungViews.map((view) => `${view?.status ?? 'not ended'}${view?.error ? ` ${view.error.code}` : ''}`),
    ordinary_agent_runs: agentViews.map((view) => view?.status ?? 'not ended'),
    wrong_key_flood: flood,
  };
  const passed =
    elicitation.asked === 0 &&
    elicitation.gate === 'waiting' &&
    figures.self_fan_out.bounded_by === 'child_budget_exceeded' &&
    fanRuns <= CHAOS_DESCENDANTS + 1 &&
    inbox.longest_reason <= 500 &&
    inbox.page_bytes <= 4 * 1024 * 1024 &&
    hungViews.every((view) => view?.status === 'failed') &&
    agentViews.every((view) => view?.status === 'completed') &&
    flood.valid_refused === 0;
  return { passed, figures };
}
