/**
 * Following a batch too large for a bar per run: one bar for the batch, driven by its events (a
 * `run` event as each run ends, then `done`), so a batch of thousands holds one stream, not one
 * per run.
 */
import type { BatchAccepted, BatchView, FollowSettings, SwitchyardClient } from '@switchyard/client';
import { ProgressBoard, type Output } from './progress-board.js';

export interface FollowBatchOptions {
  client: SwitchyardClient;
  batch: Pick<BatchAccepted, 'batch_id' | 'total'>;
  out: Output;
  signal?: AbortSignal;
  follow?: FollowSettings;
  intervalMs?: number;
}

/** Resolves with the batch's view once its `done` event has come. */
export async function followBatch(options: FollowBatchOptions): Promise<BatchView> {
  const { batch } = options;
  const ended = new Map<string, number>();
  let count = 0;
  const line = (status: string) => {
    const failed = (ended.get('failed') ?? 0) + (ended.get('cancelled') ?? 0);
    return { label: `batch ${batch.batch_id}`, status, progress: batch.total > 0 ? (100 * count) / batch.total : 100, stage: `${count}/${batch.total} ended${failed ? `, ${failed} not completed` : ''}` };
  };
  const board = new ProgressBoard(options.out, [line('running')], { intervalMs: options.intervalMs });
  try {
    await options.client.followBatch(
      batch.batch_id,
      (event) => {
        if (event.event !== 'run') return;
        count += 1;
        ended.set(event.data.status, (ended.get(event.data.status) ?? 0) + 1);
        board.update(0, line('running'));
      },
      { ...options.follow, signal: options.signal },
    );
    const view = await options.client.getBatch(batch.batch_id, { limit: 1 });
    count = batch.total - (view.counts.queued ?? 0) - (view.counts.running ?? 0);
    board.update(0, line(view.status));
    return view;
  } finally {
    board.close();
  }
}
