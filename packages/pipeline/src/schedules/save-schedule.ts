/**
 * Storing a schedule as every entry point does (the API's PUT, the bridge's put_schedule): the
 * request parsed, its pipeline looked up, every problem named by its field, then stored.
 */
import { ScheduleRequest } from '@switchyard/contracts';
import { PIPELINE_NAME } from '../definition/schema.js';
import type { PipelineStore } from '../store/pipeline-store.js';
import { checkScheduleRequest, ScheduleError } from './schedule-spec.js';
import type { ScheduleStore, StoredSchedule } from './schedule-store.js';

/** The request `body` holds, or a ScheduleError naming each field of its shape that is wrong (the first check of every entry point). */
export function scheduleRequestOf(body: unknown): ScheduleRequest {
  const parsed = ScheduleRequest.safeParse(body);
  if (!parsed.success) throw new ScheduleError(parsed.error.issues.slice(0, 50).map((issue) => ({ path: issue.path.join('.') || '(schedule)', message: issue.message })));
  return parsed.data;
}

/**
 * Checks and stores schedule `name` from `body`: a ScheduleError naming each field that is wrong
 * (the request's shape, the pipeline, the timing, the input), a ScheduleLimitError past
 * SCHEDULES_MAX.
 */
export async function saveSchedule(deps: { schedules: ScheduleStore; pipelines: PipelineStore }, name: string, body: unknown): Promise<{ created: boolean; schedule: StoredSchedule }> {
  const request = scheduleRequestOf(body);
  const pipeline = PIPELINE_NAME.test(request.pipeline) ? await deps.pipelines.compiled(request.pipeline, request.version) : null;
  checkScheduleRequest(request, pipeline, deps.schedules.limits);
  return deps.schedules.put(name, request);
}
