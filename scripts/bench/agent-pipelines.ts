/**
 * The two pipelines the agent bench compares, making the same tool calls: an agent whose model
 * asks for `calls` calls of search_relevant_information on each of `turns` turns (the stub model
 * does the asking), and a plain pipeline of `turns` layers of `calls` steps of that tool, each
 * layer needing the one before (as each turn waits for the calls of the turn before).
 */
import type { ScriptStep } from '@switchyard/models/testing';

export type BenchKind = 'agent' | 'plain';

export const AGENT_BENCH_TOOL = 'search_relevant_information';

/** What the stub answers to a conversation that has had `assistantTurns` model turns. */
export function stubReply(options: { calls: number; turns: number; assistantTurns: number }): ScriptStep {
  const turn = options.assistantTurns + 1;
  if (turn > options.turns) return { content: `Done after ${options.turns} turns of ${options.calls} calls.`, usage: { promptTokens: 50, completionTokens: 10 } };
  const toolCalls = Array.from({ length: options.calls }, (_, i) => ({ name: AGENT_BENCH_TOOL, arguments: JSON.stringify({ topic: `facet ${i + 1} of turn ${turn}` }) }));
  return { toolCalls, usage: { promptTokens: 50, completionTokens: 10 } };
}

const INPUT = { type: 'object', additionalProperties: false, required: ['topic'], properties: { topic: { type: 'string', minLength: 1, maxLength: 200 } } };

export function agentPipeline(shape: { calls: number; turns: number }) {
  return {
    name: 'bench-agent',
    description: `An agent making ${shape.turns} turns of ${shape.calls} parallel tool calls, then answering`,
    input: INPUT,
    steps: {
      work: {
        agent: {
          model: 'default',
          prompt: "'Research ' & input.topic",
          tools: [{ tool: AGENT_BENCH_TOOL, service: 'search' }],
          // The turns with calls, and the one that answers.
          max_turns: shape.turns + 1,
        },
      },
    },
    output: { answer: 'steps.work' },
  };
}

export function plainPipeline(shape: { calls: number; turns: number }) {
  const name = (turn: number, call: number) => `t${turn}c${call}`;
  const steps: Record<string, unknown> = {};
  for (let turn = 1; turn <= shape.turns; turn += 1) {
    for (let call = 1; call <= shape.calls; call += 1) {
      steps[name(turn, call)] = {
        service: 'search',
        tool: AGENT_BENCH_TOOL,
        ...(turn > 1 ? { needs: Array.from({ length: shape.calls }, (_, i) => name(turn - 1, i + 1)) } : {}),
        args: { topic: `'facet ${call} of turn ${turn} of ' & input.topic` },
      };
    }
  }
  return {
    name: 'bench-plain',
    description: `${shape.turns} layers of ${shape.calls} parallel tool steps`,
    input: INPUT,
    steps,
    output: { answer: `steps.${name(shape.turns, 1)}.metadata.total_results` },
  };
}
