/**
 * Which spans are kept: every span of a kept trace (parent-based), and every new trace except
 * BullMQ's housekeeping. A worker polls its queues and checks for stalled jobs all the time; with
 * no job those spans start traces of their own, which would bury the runs' traces. A poll that
 * returns a job has the job's trace as parent, so it is kept.
 */
import type { Context, SpanKind } from '@opentelemetry/api';
import { ParentBasedSampler, SamplingDecision, type Sampler, type SamplingResult } from '@opentelemetry/sdk-trace-base';

const HOUSEKEEPING = new Set(['getNextJob', 'moveStalledJobsToWait', 'startStalledCheckTimer', 'rateLimit', 'trimEvents', 'clean', 'close', 'pause', 'resume', 'drain', 'promoteJobs', 'retryJobs', 'remove', 'updateJobProgress']);

class NoHousekeepingRoots implements Sampler {
  shouldSample(_context: Context, _traceId: string, spanName: string, _kind: SpanKind): SamplingResult {
    // BullMQ names its spans `<operation> <queue>` and sets its attributes only after the start.
    if (HOUSEKEEPING.has(spanName.split(' ', 1)[0] ?? '')) return { decision: SamplingDecision.NOT_RECORD };
    return { decision: SamplingDecision.RECORD_AND_SAMPLED };
  }

  toString(): string {
    return 'NoHousekeepingRoots';
  }
}

/** Parent-based; new traces are kept unless they are BullMQ's housekeeping. */
export function switchyardSampler(): Sampler {
  return new ParentBasedSampler({ root: new NoHousekeepingRoots() });
}
