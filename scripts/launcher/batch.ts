/**
 * Submits the sample batch through the API and follows it: a progress bar per run (redrawn in a
 * terminal, a line per change otherwise), then each finished story written to `.data/stories/`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@switchyard/redis';
import { progressLine, slugOf, storyMarkdown, type RunLine } from './render.js';

interface RunView {
  run_id: string;
  status: string;
  progress: number;
  stages: { name: string; status: string }[];
  result: { title: string; content: string; word_count: number } | null;
  error: { message: string; stage?: string } | null;
}

export const STORIES_DIR = path.join(REPO_ROOT, '.data', 'stories');
const ENDED = new Set(['completed', 'failed', 'cancelled']);

export async function runBatch(options: { apiUrl: string; apiKey: string; topics: string[]; say: (line: string) => void }): Promise<{ written: string[]; failed: number }> {
  const headers = { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' };
  const api = async <T>(pathname: string, init?: RequestInit): Promise<T> => {
    const res = await fetch(`${options.apiUrl}${pathname}`, { ...init, headers });
    const body = (await res.json()) as T & { error?: { message: string } };
    if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${pathname}: HTTP ${res.status} ${body.error?.message ?? ''}`);
    return body;
  };
  const batch = await api<{ batch_id: string; run_ids: string[] }>('/v1/batches', { method: 'POST', body: JSON.stringify({ items: options.topics.map((topic) => ({ topic })) }) });
  options.say(`\nbatch ${batch.batch_id}: ${batch.run_ids.length} stories\n`);

  const tty = Boolean(process.stdout.isTTY);
  const shown = new Map<string, string>();
  let drawn = 0;
  const views = new Map<string, RunView>();
  while (batch.run_ids.some((id) => !ENDED.has(views.get(id)?.status ?? ''))) {
    await Promise.all(batch.run_ids.map(async (id) => views.set(id, await api<RunView>(`/v1/runs/${id}`))));
    const lines = batch.run_ids.map((id, i) => progressLine(toLine(views.get(id), options.topics[i] ?? id)));
    if (tty) {
      if (drawn > 0) process.stdout.write(`\x1b[${drawn}A`);
      for (const line of lines) process.stdout.write(`\x1b[2K${line}\n`);
      drawn = lines.length;
    } else {
      batch.run_ids.forEach((id, i) => {
        if (shown.get(id) !== lines[i]) options.say(lines[i] ?? '');
        shown.set(id, lines[i] ?? '');
      });
    }
    if (batch.run_ids.some((id) => !ENDED.has(views.get(id)?.status ?? ''))) await new Promise((resolve) => setTimeout(resolve, 300));
  }

  mkdirSync(STORIES_DIR, { recursive: true });
  const written: string[] = [];
  let failed = 0;
  batch.run_ids.forEach((id, i) => {
    const view = views.get(id);
    const topic = options.topics[i] ?? id;
    if (view?.status !== 'completed' || !view.result) {
      failed += 1;
      options.say(`✖ ${topic}: ${view?.status ?? 'unknown'}${view?.error ? ` (${view.error.stage ?? ''} ${view.error.message})` : ''}`);
      return;
    }
    const file = path.join(STORIES_DIR, `${slugOf(topic)}.md`);
    writeFileSync(file, storyMarkdown({ title: view.result.title, content: view.result.content, runId: id, wordCount: view.result.word_count, topic }));
    written.push(file);
  });
  return { written, failed };
}

function toLine(view: RunView | undefined, topic: string): RunLine {
  const running = view?.stages.filter((s) => s.status === 'running' || s.status === 'retrying').map((s) => s.name);
  const stage = running && running.length > 1 ? `${running.length} stages` : running?.[0];
  return { topic, status: view?.status ?? 'queued', progress: view?.progress ?? 0, stage };
}
