/**
 * Schedules: a pipeline run on a cron pattern or at an interval, through BullMQ's job schedulers
 * (packages/pipeline/src/schedules/). Reading needs `read`, changing `admin` (route-scopes.ts).
 */
import { Router, type Request } from 'express';
import { z } from 'zod';
import { SCHEDULE_NAME, type ScheduleDeleted, type ScheduleList, type ScheduleView } from '@switchyard/contracts';
import { describeZodError, HttpError, methodNotAllowed } from '@switchyard/http-kit';
import { problemsRefusal, saveSchedule, ScheduleError, ScheduleLimitError, type StoredSchedule } from '@switchyard/pipeline';
import type { AppDeps } from '../deps.js';
import { jsonBody } from '../json-body.js';

/** The query of `GET /v1/schedules`. */
export const ScheduleListQuery = z.object({
  offset: z.coerce.number().int().min(0).max(100_000).default(0).describe('Schedules to skip, by name'),
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('Most schedules in the page'),
});

/**
 * Read of a schedule body: more than its input may be (SCHEDULE_MAX_INPUT_BYTES, at most 1 MiB),
 * so that an input past its bound is refused naming `input` rather than by the parser.
 */
const SCHEDULE_BODY_LIMIT = '2mb';

function scheduleName(req: Request): string {
  const name = String(req.params.name);
  if (!SCHEDULE_NAME.test(name)) throw new HttpError({ status: 404, code: 'schedule_not_found', message: `No schedule ${name}: a schedule's name is 1 to 64 letters, digits, - and _` });
  return name;
}

/** The schedules as the API shows them: next tick, last run and its status. */
export function scheduleViews(deps: Pick<AppDeps, 'schedules' | 'store'>, schedules: readonly StoredSchedule[]): Promise<ScheduleView[]> {
  return deps.schedules.views(schedules, (ids) => deps.store.getStatuses(ids));
}

async function oneView(deps: AppDeps, schedule: StoredSchedule | null, name: string): Promise<ScheduleView> {
  if (!schedule) throw new HttpError({ status: 404, code: 'schedule_not_found', message: `No schedule ${name}` });
  const [view] = await scheduleViews(deps, [schedule]);
  return view as ScheduleView;
}

/**
 * Checks and stores a schedule: 400 `invalid_schedule` naming each field that is wrong (the
 * pipeline, the cron pattern, the interval, the time zone, the input), 409 `schedule_limit` past
 * SCHEDULES_MAX.
 */
async function putSchedule(deps: AppDeps, name: string, body: unknown): Promise<{ created: boolean; schedule: StoredSchedule }> {
  try {
    return await saveSchedule(deps, name, body);
  } catch (error) {
    if (error instanceof ScheduleError) throw new HttpError({ status: 400, code: 'invalid_schedule', ...problemsRefusal(`Schedule ${name} is not valid`, error.problems) });
    if (error instanceof ScheduleLimitError) throw new HttpError({ status: 409, code: 'schedule_limit', message: error.message, details: { max: error.max } });
    throw error;
  }
}

export function schedulesRouter(deps: AppDeps): Router {
  const router = Router();

  router.get('/v1/schedules', async (req, res) => {
    const query = ScheduleListQuery.safeParse(req.query);
    if (!query.success) throw new HttpError({ status: 400, code: 'invalid_parameters', ...describeZodError(query.error) });
    const { schedules, total } = await deps.schedules.list(query.data);
    const next = query.data.offset + schedules.length;
    const list: ScheduleList = { schedules: await scheduleViews(deps, schedules), ...query.data, total, next_offset: next < total ? next : null };
    res.json(list);
  });

  router.put('/v1/schedules/:name', jsonBody(SCHEDULE_BODY_LIMIT, deps.jsonMaxDepth), async (req, res) => {
    const name = scheduleName(req);
    const { created, schedule } = await putSchedule(deps, name, req.body);
    res.status(created ? 201 : 200).location(`/v1/schedules/${name}`).json(await oneView(deps, schedule, name));
  });

  router.get('/v1/schedules/:name', async (req, res) => {
    const name = scheduleName(req);
    res.json(await oneView(deps, await deps.schedules.get(name), name));
  });

  for (const action of ['pause', 'resume'] as const) {
    router.post(`/v1/schedules/:name/${action}`, async (req, res) => {
      const name = scheduleName(req);
      res.json(await oneView(deps, await deps.schedules.setPaused(name, action === 'pause'), name));
    });
  }

  router.delete('/v1/schedules/:name', async (req, res) => {
    const name = scheduleName(req);
    if (!(await deps.schedules.delete(name))) throw new HttpError({ status: 404, code: 'schedule_not_found', message: `No schedule ${name}` });
    const deleted: ScheduleDeleted = { name, deleted: true };
    res.json(deleted);
  });

  router.all('/v1/schedules', methodNotAllowed('GET'));
  router.all('/v1/schedules/:name', methodNotAllowed('GET', 'PUT', 'DELETE'));
  router.all('/v1/schedules/:name/pause', methodNotAllowed('POST'));
  router.all('/v1/schedules/:name/resume', methodNotAllowed('POST'));
  return router;
}
