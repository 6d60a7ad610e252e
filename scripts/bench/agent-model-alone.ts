/**
 * The model client's own cost, measured apart from the engine: the same turns the agent bench's
 * runs ask (the same conversations, tools and stub model, as many at once as the agent queue
 * takes), made straight through the workers' model client with no job, transcript or event. What
 * this process spends on them is what LangChain, the HTTP client and the stream parsing cost an
 * agent; the rest of an agent's figure is the engine's.
 */
import { SEARCH_OUTPUT } from './instant-tools.js';
import { AGENT_BENCH_TOOL } from './agent-pipelines.js';
import type { ChatMessage as ModelMessage } from '@switchyard/models';
import type { AgentModels } from '@switchyard/workers';
import { round } from './story-stats.js';

/** The conversation an agent's turn `turn` sends, as the workers rebuild it from the transcript. */
function conversation(options: { run: number; turn: number; calls: number }): ModelMessage[] {
  const result = JSON.stringify(SEARCH_OUTPUT);
  const messages: ModelMessage[] = [{ role: 'user', content: `Research agent run ${options.run}` }];
  for (let t = 1; t < options.turn; t += 1) {
    const toolCalls = Array.from({ length: options.calls }, (_, i) => ({ id: `call_${t}_${i}`, name: AGENT_BENCH_TOOL, arguments: JSON.stringify({ topic: `facet ${i + 1} of turn ${t}` }) }));
    messages.push({ role: 'assistant', content: null, tool_calls: toolCalls });
    for (const call of toolCalls) messages.push({ role: 'tool', tool_call_id: call.id, content: result });
  }
  return messages;
}

/** CPU of this process per model turn (µs), `runs` × (`turns` + 1) turns, `concurrency` at once. */
export async function modelClientCpu(models: AgentModels, options: { runs: number; calls: number; turns: number; concurrency: number }): Promise<{ turns: number; us_per_turn: number }> {
  const queue = Array.from({ length: options.runs }, (_, run) => Array.from({ length: options.turns + 1 }, (_, t) => ({ run, turn: t + 1 }))).flat();
  const total = queue.length;
  const tools = [{ name: AGENT_BENCH_TOOL, description: '', parameters: { type: 'object' } }];
  const before = process.cpuUsage();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        let streamed = '';
        await models.turn({ model: 'default', messages: conversation({ ...next, calls: options.calls }), tools, signal: AbortSignal.timeout(60_000), onToken: (text) => (streamed += text) });
      }
    }),
  );
  const used = process.cpuUsage(before);
  return { turns: total, us_per_turn: round((used.user + used.system) / total, 1) };
}
