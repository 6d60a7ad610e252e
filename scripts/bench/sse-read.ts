/**
 * The CPU a worker spends reading one streamed section, the tool client's way (streamOnce: SSE
 * parsing, each `content` event checked and handed on), on a recorded-shape body held in memory so
 * that only the client's work is timed: 20 sentences, each written as its `content` event and a
 * `progress` event in one network chunk, as the reference writing service sends them.
 * `npx tsx scripts/bench/sse-read.ts [sections]` prints µs per section (median of 7 rounds).
 */
import { streamOnce } from '../../packages/tool-client/src/stream-call.js';

const SENTENCES = 20;
const encoder = new TextEncoder();
const sentence = (i: number) => `The keeper lit lamp number ${i} and wrote, in a hand the salt had made unsteady, what the night had been like. `;
const writes = [
  'event: progress\ndata: {"completed":0,"message":"write_story_section started"}\n\n',
  ...Array.from({ length: SENTENCES }, (_, i) => `event: content\ndata: ${JSON.stringify({ chunk: sentence(i) })}\n\nevent: progress\ndata: {"completed":${Math.round(((i + 1) / SENTENCES) * 100)}}\n\n`),
  `event: progress\ndata: {"completed":100}\n\nevent: done\ndata: ${JSON.stringify({ status: 'success', result: { content: Array.from({ length: SENTENCES }, (_, i) => sentence(i)).join(''), word_count: 400, reading_time: '2 min' } })}\n\n`,
].map((text) => encoder.encode(text));

const fakeFetch = (async () =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const bytes of writes) controller.enqueue(bytes);
        controller.close();
      },
    }),
    { headers: { 'content-type': 'text/event-stream' } },
  )) as unknown as typeof fetch;

async function readSections(count: number): Promise<number> {
  const signal = new AbortController().signal;
  let chunks = 0;
  const started = process.cpuUsage();
  for (let i = 0; i < count; i += 1) {
    await streamOnce({ scope: { service: 'writing', tool: 'write_story_section', attempt: 1, signal } as never, url: 'http://writing.invalid/run/write_story_section?stream=true', init: { method: 'POST', headers: {} }, signal, handlers: { onChunk: () => void (chunks += 1) }, fetch: fakeFetch });
  }
  const used = process.cpuUsage(started);
  if (chunks !== count * SENTENCES) throw new Error(`read ${chunks} chunks, expected ${count * SENTENCES}`);
  return (used.user + used.system) / count;
}

const sections = Number(process.argv[2] ?? 5000);
await readSections(1000); // warm-up
const rounds: number[] = [];
for (let r = 0; r < 7; r += 1) rounds.push(await readSections(sections));
rounds.sort((a, b) => a - b);
process.stdout.write(`${JSON.stringify({ sections, sentences_per_section: SENTENCES, us_per_section_median: Math.round(rounds[3] ?? 0), us_per_section_min: Math.round(rounds[0] ?? 0) })}\n`);
