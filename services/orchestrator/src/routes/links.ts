export const runLinks = (runId: string) => ({ poll_url: `/v1/runs/${runId}`, events_url: `/v1/runs/${runId}/events` });
export const batchLinks = (batchId: string) => ({ poll_url: `/v1/batches/${batchId}`, events_url: `/v1/batches/${batchId}/events` });

/** Ids are generated here; anything else cannot name a run or batch, so it is a 404 without a lookup. */
export const RUN_ID = /^run_[0-9a-f]{32}$/;
export const BATCH_ID = /^batch_[0-9a-f]{32}$/;
