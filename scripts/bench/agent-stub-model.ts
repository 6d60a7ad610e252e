/**
 * The agent bench's model, as a process of its own so that its CPU is not counted as the engine's:
 * the scripted stub model (zero latency) asking for `calls` parallel calls of
 * search_relevant_information on each of its first `turns` turns of a conversation, then answering.
 * The turn is read from the conversation (its assistant messages), so any number of runs may talk
 * to it at once. Prints `{"url": …}` on stdout once it listens, and its counters as a JSON line
 * for each line read on stdin; stops on SIGTERM.
 *
 *   tsx scripts/bench/agent-stub-model.ts <calls> <turns>
 */
import { startScriptedModel } from '@switchyard/models/testing';
import { stubReply } from './agent-pipelines.js';

async function main(): Promise<void> {
  const [calls, turns] = process.argv.slice(2).map(Number);
  if (!Number.isInteger(calls) || !Number.isInteger(turns) || (calls ?? 0) < 1 || (turns ?? 0) < 1) {
    process.stderr.write('usage: agent-stub-model.ts <calls per turn> <turns with calls>\n');
    process.exit(2);
  }
  const model = await startScriptedModel({
    script: (request) => stubReply({ calls: calls as number, turns: turns as number, assistantTurns: request.messages.filter((m) => m.role === 'assistant').length }),
  });
  // The request log would grow with every turn of the bench: only the counters are kept.
  const keepCounters = setInterval(() => model.requests.splice(0), 1000);
  process.stdout.write(`${JSON.stringify({ url: model.baseUrl })}\n`);
  process.stdin.setEncoding('utf8').on('data', () => process.stdout.write(`${JSON.stringify(model.counters)}\n`));
  process.once('SIGTERM', () => {
    clearInterval(keepCounters);
    void model.close().then(() => process.exit(0));
  });
}

await main();
