/**
 * `npm start -- --agent "a topic"`: the shipped research agent (pipelines/research-agent.yaml) on
 * one topic. Its conversation is told as it happens (each turn, each tool call and its result),
 * then its findings, which are also written to `.data/research/<slug>.json` with the transcript.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RunView, SwitchyardClient } from '@switchyard/client';
import { REPO_ROOT } from '@switchyard/redis';
import { slugOf } from './render.js';

export const RESEARCH_DIR = path.join(REPO_ROOT, '.data', 'research');
const RESEARCH_PIPELINE = 'research-agent';

export interface AgentOutcome {
  run: RunView;
  /** Where the findings were written; undefined when the run did not complete. */
  file: string | undefined;
}

const oneLine = (text: string, max = 100) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

export async function runResearchAgent(options: { client: SwitchyardClient; topic: string; say: (line: string) => void; signal: AbortSignal; dir?: string }): Promise<AgentOutcome> {
  const { client, topic, say } = options;
  const accepted = await client.startRun(RESEARCH_PIPELINE, { topic });
  say(`\nresearch agent, run ${accepted.run_id}: "${topic}"`);
  await client.followRun(
    accepted.run_id,
    (event) => {
      if (event.event === 'turn') say(`  turn ${event.data.turn}: ${event.data.tool_calls === 0 ? 'answered' : `asked for ${event.data.tool_calls} tool call${event.data.tool_calls === 1 ? '' : 's'}`} (${event.data.usage.prompt_tokens + event.data.usage.completion_tokens} tokens so far)`);
      else if (event.event === 'tool_call') say(`    → ${event.data.tool} ${oneLine(event.data.arguments, 80)}`);
      else if (event.event === 'tool_result') say(`    ${event.data.is_error ? '✖' : '←'} ${event.data.tool}: ${oneLine(event.data.preview)}`);
      else if (event.event === 'error') say(`    ! ${event.data.message}${event.data.will_retry ? ' (retrying)' : ''}`);
    },
    { signal: options.signal },
  );
  const run = await client.getRun(accepted.run_id);
  if (run.status !== 'completed') return { run, file: undefined };
  const dir = options.dir ?? RESEARCH_DIR;
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${slugOf(topic)}.json`);
  writeFileSync(file, `${JSON.stringify({ topic, run_id: run.run_id, findings: run.result, transcript: run.stages[0]?.agent ?? null }, null, 2)}\n`);
  return { run, file };
}
