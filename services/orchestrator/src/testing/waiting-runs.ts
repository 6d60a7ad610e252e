/**
 * Runs that wait, for the inbox's tests (the dashboard's and the MCP bridge's): an agent whose
 * search call needs approval, on a scripted model that reports the tool's answer; a wait step on
 * a flat signal (a verdict and a note); and one on a nested signal, which no flat form can ask for.
 */
import type { ScriptedReply, ScriptedRequest } from '@switchyard/models/testing';
import { registerPipeline } from './pipelines.js';
import type { TestStack } from './stack.js';

/** The scripted model's name in the stack (`agents.moreModels`). */
export const WAITING_MODEL = 'scripted';

/**
 * Asks to search for the prompt's topic; once it reads the tool's answer (or its refusal), answers
 * `told: <what the tool said>`, so a test sees the edited arguments or the note in the run's result.
 */
export function approvalScript(request: ScriptedRequest): ScriptedReply {
  const result = request.messages.find((m) => m.role === 'tool');
  if (result) return { content: `told: ${String(result.content)}` };
  const topic = /topic:(.+)$/.exec(String(request.messages.find((m) => m.role === 'user')?.content ?? ''))?.[1] ?? 'nothing';
  return { content: `I want to search for ${topic}.`, toolCalls: [{ name: 'search_relevant_information', arguments: JSON.stringify({ topic, depth: 2 }) }] };
}

export const REVIEW_SCHEMA = { type: 'object', required: ['verdict'], properties: { verdict: { enum: ['accept', 'reject'] }, note: { type: 'string' }, score: { type: 'integer', minimum: 1, maximum: 5 } } };

/**
 * Registers `inbox-agent` (input `{topic}`), `inbox-gate` (signal `review`), `inbox-two-gates`
 * (signal `review`, then `release`: the run is still waiting after its first signal) and
 * `inbox-nested` (signal `shipment`).
 */
export async function registerWaitingPipelines(stack: TestStack): Promise<void> {
  await registerPipeline(stack, {
    name: 'inbox-agent',
    input: { type: 'object', required: ['topic'], properties: { topic: { type: 'string' } } },
    steps: { act: { agent: { model: WAITING_MODEL, prompt: "'topic:' & input.topic", tools: [{ tool: 'search_relevant_information', approval: 'required' }], max_turns: 3 } } },
    output: 'steps.act',
  });
  await registerPipeline(stack, { name: 'inbox-gate', steps: { review: { wait: { signal: 'review', schema: REVIEW_SCHEMA } } }, output: 'steps.review' });
  await registerPipeline(stack, { name: 'inbox-two-gates', steps: { review: { wait: { signal: 'review', schema: REVIEW_SCHEMA } }, release: { wait: { signal: 'release' }, needs: ['review'] } }, output: 'steps.review' });
  await registerPipeline(stack, {
    name: 'inbox-nested',
    steps: { ship: { wait: { signal: 'shipment', schema: { type: 'object', required: ['address'], properties: { address: { type: 'object', properties: { city: { type: 'string' } } } } } } } },
    output: 'steps.ship',
  });
}
