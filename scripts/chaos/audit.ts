/**
 * What a batch came to, counted the way an operator would: runs lost (gone), stuck (not ended in
 * time), failed, completed; events written twice; stages redone after they had completed; and
 * sections whose streamed text, as a client keeping what came after each `reset` holds it, is not
 * the section's final text.
 */
import { readRunEvents, type ChaosStack, type RunEvent } from './harness.js';

export interface BatchAudit {
  runs: number;
  completed: number;
  failed: number;
  lost: number;
  stuck: number;
  duplicated_events: number;
  redone_stages: number;
  doubled_sections: number;
  failures: string[];
}

interface RunView {
  status: string;
  error: { code: string; message: string } | null;
  result: { sections?: { name: string; content: string }[] } | null;
}

/** Events of the same type and data at the same place in a stage's life, more than once. */
function duplicates(events: readonly RunEvent[]): number {
  const seen = new Set<string>();
  let dup = 0;
  for (const event of events) {
    if (event.type !== 'stage' && event.type !== 'done') continue;
    const key = `${event.type}:${JSON.stringify(event.data)}`;
    if (seen.has(key)) dup += 1;
    seen.add(key);
  }
  return dup;
}

/** Stages that ran again after they had completed. */
function redone(events: readonly RunEvent[]): number {
  const completed = new Set<string>();
  let count = 0;
  for (const event of events.filter((e) => e.type === 'stage')) {
    const stage = String(event.data.stage);
    if (event.data.status === 'completed') {
      if (completed.has(stage)) count += 1;
      completed.add(stage);
    } else if (event.data.status === 'running' && completed.has(stage)) count += 1;
  }
  return count;
}

function doubledSections(events: readonly RunEvent[], run: RunView): number {
  const texts = new Map<string, string>();
  for (const event of events) {
    const stage = String(event.data.stage);
    if (event.type === 'reset') texts.set(stage, '');
    if (event.type === 'content') texts.set(stage, (texts.get(stage) ?? '') + String(event.data.chunk ?? ''));
  }
  return (run.result?.sections ?? []).filter((s) => (texts.get(`write.${s.name}`) ?? '').trim() !== s.content.trim()).length;
}

export async function auditRuns(stack: Pick<ChaosStack, 'apiUrl' | 'headers' | 'get'>, runIds: readonly string[], options: { endWithinMs: number }): Promise<BatchAudit> {
  const audit: BatchAudit = { runs: runIds.length, completed: 0, failed: 0, lost: 0, stuck: 0, duplicated_events: 0, redone_stages: 0, doubled_sections: 0, failures: [] };
  const deadline = Date.now() + options.endWithinMs;
  for (const runId of runIds) {
    let view = await stack.get<RunView>(`/v1/runs/${runId}`);
    if (view.status === 404) {
      audit.lost += 1;
      continue;
    }
    while (!['completed', 'failed', 'cancelled'].includes(view.body.status) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      view = await stack.get<RunView>(`/v1/runs/${runId}`);
    }
    if (!['completed', 'failed', 'cancelled'].includes(view.body.status)) {
      audit.stuck += 1;
      continue;
    }
    const events = await readRunEvents(stack, runId);
    audit.duplicated_events += duplicates(events);
    audit.redone_stages += redone(events);
    if (view.body.status === 'completed') {
      audit.completed += 1;
      audit.doubled_sections += doubledSections(events, view.body);
    } else {
      audit.failed += 1;
      if (audit.failures.length < 5) audit.failures.push(`${runId}: ${view.body.error?.code ?? view.body.status} ${view.body.error?.message ?? ''}`.slice(0, 300));
    }
  }
  return audit;
}
