/**
 * Schedules in the OpenAPI document: put, read, list, pause, resume and delete.
 */
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { SCHEDULE_NAME, ScheduleDeleted, ScheduleList, ScheduleRequest, ScheduleView } from '@switchyard/contracts';
import { ScheduleListQuery } from '../routes/schedules.js';
import { BODY_ERRORS, errors, jsonResponse, LocationHeader } from './common.js';

const ScheduleNameParam = z.object({ name: z.string().regex(SCHEDULE_NAME).describe("A schedule's name: 1 to 64 letters, digits, `-` and `_`; any other answers 404") });
const NOT_FOUND = 'No such schedule (`schedule_not_found`)';

const pauseOrResume = (action: 'pause' | 'resume') => ({
  post: {
    operationId: `${action}Schedule`,
    tags: ['schedules'],
    summary: action === 'pause' ? 'Pause a schedule: no tick until it is resumed' : 'Resume a paused schedule: it ticks again from now on',
    description: action === 'pause' ? 'Its job scheduler is removed (its next tick with it); the schedule, its input and its last run are kept. Pausing a paused schedule changes nothing.' : 'Its job scheduler is set again: an interval counts from now, a cron pattern fires at its next time. Ticks missed while paused are not made up.',
    requestParams: { path: ScheduleNameParam },
    responses: { '200': jsonResponse('The schedule', ScheduleView), ...errors({ v1: true, routeErrors: { 404: NOT_FOUND } }) },
  },
});

export const schedulePaths: ZodOpenApiPathsObject = {
  '/v1/schedules': {
    get: {
      operationId: 'listSchedules',
      tags: ['schedules'],
      summary: 'List schedules with their next and last runs',
      description: 'By name, a page at a time; each with when its next tick is due and the run its last tick started (with that run\'s status now).',
      requestParams: { query: ScheduleListQuery },
      responses: { '200': jsonResponse('A page of schedules', ScheduleList), ...errors({ v1: true, routeErrors: { 400: 'A bad `offset` or `limit` (`invalid_parameters`)' } }) },
    },
  },
  '/v1/schedules/{name}': {
    get: {
      operationId: 'getSchedule',
      tags: ['schedules'],
      summary: 'Read a schedule, its next tick and its last run',
      requestParams: { path: ScheduleNameParam },
      responses: { '200': jsonResponse('The schedule', ScheduleView), ...errors({ v1: true, routeErrors: { 404: NOT_FOUND } }) },
    },
    put: {
      operationId: 'putSchedule',
      tags: ['schedules'],
      summary: 'Create or replace a schedule that runs a pipeline',
      description:
        'Each tick starts one run of the pipeline with `input`, whatever the number of workers and orchestrators (BullMQ job schedulers); its run id is made from the schedule and the tick, so a tick processed twice starts one run. Checked before it is stored: the pipeline (and version) exists, `cron` parses in `timezone`, `every` is at least 1 s, `input` fits `SCHEDULE_MAX_INPUT_BYTES` and the pipeline\'s input schema. Replacing a schedule keeps it paused if it was.',
      requestParams: { path: ScheduleNameParam },
      requestBody: { required: true, content: { 'application/json': { schema: ScheduleRequest } } },
      responses: {
        '201': jsonResponse('The schedule is made', ScheduleView, LocationHeader),
        '200': jsonResponse('The schedule is replaced', ScheduleView, LocationHeader),
        ...errors({
          v1: true,
          routeErrors: {
            ...BODY_ERRORS,
            400: 'The schedule is not valid (`invalid_schedule`, each problem naming its field in `details.problems`: `pipeline`, `version`, `cron`, `every`, `timezone`, `input…`), or the body is not JSON',
            404: "The name is not a schedule's name (`schedule_not_found`)",
            409: 'There are as many schedules as there may be (`schedule_limit`, `SCHEDULES_MAX`)',
          },
        }),
      },
    },
    delete: {
      operationId: 'deleteSchedule',
      tags: ['schedules'],
      summary: 'Delete a schedule and its job scheduler',
      description: 'No tick after this; runs it started go on.',
      requestParams: { path: ScheduleNameParam },
      responses: { '200': jsonResponse('The schedule is deleted', ScheduleDeleted), ...errors({ v1: true, routeErrors: { 404: NOT_FOUND } }) },
    },
  },
  '/v1/schedules/{name}/pause': pauseOrResume('pause'),
  '/v1/schedules/{name}/resume': pauseOrResume('resume'),
};
