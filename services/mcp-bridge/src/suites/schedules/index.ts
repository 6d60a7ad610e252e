/**
 * Schedules for agents: list, read, put, pause, resume and delete them, through the same store
 * and checks as the API's `/v1/schedules` (packages/pipeline/src/schedules/). Reading needs
 * `read`, changing `admin` (tool-scopes.ts). A refusal (an unknown schedule, a field that is
 * wrong, the count bound) is an `isError` result with `{error:{code,message,details}}`.
 */
import { z } from 'zod';
import { SCHEDULE_NAME, ScheduleDeleted, ScheduleList, ScheduleRequest, ScheduleView } from '@switchyard/contracts';
import { problemsRefusal, saveSchedule, scheduleRequestOf, ScheduleError, ScheduleLimitError, type PipelineStore, type RunStore, type ScheduleStore, type StoredSchedule } from '@switchyard/pipeline';
import { failure, jsonSchemaOf, refusedArguments, success, type ArgumentsRefusal, type SuiteTool, type ToolOutcome, type ToolSuite } from '@switchyard/tool-suite';
import { parseArgs } from '../parse-args.js';
import { outputSchemaOf } from '../error-body.js';

export interface SchedulesSuiteDeps {
  schedules: ScheduleStore;
  pipelines: PipelineStore;
  store: RunStore;
}

const Name = z.string().regex(SCHEDULE_NAME, 'a schedule name: 1 to 64 letters, digits, - and _').describe("The schedule's name");
const NamedInput = z.strictObject({ name: Name });
const ListInput = z.strictObject({
  offset: z.number().int().min(0).max(100_000).default(0).describe('Schedules to skip, by name'),
  limit: z.number().int().min(1).max(200).default(50).describe('Most schedules to answer (default 50)'),
});
const PutInput = z.strictObject({ name: Name, schedule: ScheduleRequest });

const notFound = (name: string) => failure({ error: { code: 'schedule_not_found', message: `No schedule ${name}`, details: { name } } });

export function schedulesSuite(deps: SchedulesSuiteDeps): ToolSuite {
  const views = (schedules: readonly StoredSchedule[]) => deps.schedules.views(schedules, (ids) => deps.store.getStatuses(ids));
  const one = async (schedule: StoredSchedule | null, name: string): Promise<ToolOutcome> => (schedule ? success(ScheduleView.parse((await views([schedule]))[0])) : notFound(name));
  const tool = (definition: { name: string; title: string; description: string; input: z.ZodType; output: z.ZodType; readOnly: boolean; destructive?: boolean; handler: SuiteTool['handler'] }): SuiteTool => ({
    name: definition.name,
    longRunning: false,
    description: definition.description,
    inputSchema: jsonSchemaOf(definition.input),
    outputSchema: outputSchemaOf(definition.output),
    annotations: { title: definition.title, readOnlyHint: definition.readOnly, destructiveHint: definition.destructive ?? false, idempotentHint: true, openWorldHint: false },
    handler: definition.handler,
  });
  const pauseTool = (paused: boolean) =>
    tool({
      name: paused ? 'pause_schedule' : 'resume_schedule',
      title: paused ? 'Pause a schedule' : 'Resume a schedule',
      description: paused ? 'Stops a schedule ticking until it is resumed; it and its last run are kept.' : 'Lets a paused schedule tick again from now on; ticks missed while paused are not made up.',
      input: NamedInput,
      output: ScheduleView,
      readOnly: false,
      handler: async (args) => {
        const { name } = parseArgs(NamedInput, args);
        return one(await deps.schedules.setPaused(name, paused), name);
      },
    });

  return {
    name: 'schedules',
    description: 'Schedules: run a registered pipeline on a cron pattern or at an interval; list them with their next and last runs, pause, resume and delete them.',
    tools: [
      tool({
        name: 'list_schedules',
        title: 'List schedules',
        description: 'Schedules by name, a page at a time, each with when its next tick is due and the run its last tick started (and its status now).',
        input: ListInput,
        output: ScheduleList,
        readOnly: true,
        handler: async (args) => {
          const page = parseArgs(ListInput, args);
          const { schedules, total } = await deps.schedules.list(page);
          const next = page.offset + schedules.length;
          return success(ScheduleList.parse({ schedules: await views(schedules), ...page, total, next_offset: next < total ? next : null }));
        },
      }),
      tool({
        name: 'get_schedule',
        title: 'Read a schedule',
        description: 'A schedule: its pipeline, timing, input, whether it is paused, its next tick and its last run.',
        input: NamedInput,
        output: ScheduleView,
        readOnly: true,
        handler: async (args) => {
          const { name } = parseArgs(NamedInput, args);
          return one(await deps.schedules.get(name), name);
        },
      }),
      tool({
        name: 'put_schedule',
        title: 'Create or replace a schedule',
        description: 'Runs `schedule.pipeline` with `schedule.input` on `schedule.cron` (in `schedule.timezone`) or `schedule.every` (at least 1s): one run per tick. Checked first: the pipeline exists, the cron parses, the input fits the pipeline\'s input schema; each problem names its field. A paused schedule replaced stays paused.',
        input: PutInput,
        output: ScheduleView,
        readOnly: false,
        handler: async (args) => {
          const { name } = parseArgs(NamedInput.extend({ schedule: z.unknown() }), args);
          try {
            const { schedule } = await saveSchedule(deps, name, (args as { schedule?: unknown }).schedule);
            return await one(schedule, name);
          } catch (error) {
            if (error instanceof ScheduleError) return failure({ error: { code: 'invalid_schedule', ...problemsRefusal(`Schedule ${name} is not valid`, error.problems) } });
            if (error instanceof ScheduleLimitError) return failure({ error: { code: 'schedule_limit', message: error.message, details: { max: error.max } } });
            throw error;
          }
        },
      }),
      pauseTool(true),
      pauseTool(false),
      tool({
        name: 'delete_schedule',
        title: 'Delete a schedule',
        description: 'Deletes a schedule and its next tick; runs it started go on.',
        input: NamedInput,
        output: ScheduleDeleted,
        readOnly: false,
        destructive: true,
        handler: async (args) => {
          const { name } = parseArgs(NamedInput, args);
          return (await deps.schedules.delete(name)) ? success({ name, deleted: true }) : notFound(name);
        },
      }),
    ],
    refuseArguments: (name, refusal) => (name === 'put_schedule' ? refusedSchedule(refusal) : refusedArguments(refusal)),
  };
}

/**
 * A schedule put_schedule's schema refuses, answered as the API refuses the same body
 * (`invalid_schedule`, each problem at the same path, an additional field named), by the same
 * check; any other refusal (a bad name) keeps the suite's default shape.
 */
function refusedSchedule(refusal: ArgumentsRefusal): ToolOutcome {
  const name = refusal.args.name;
  if (typeof name !== 'string' || !SCHEDULE_NAME.test(name)) return refusedArguments(refusal);
  try {
    scheduleRequestOf(refusal.args.schedule);
  } catch (error) {
    if (error instanceof ScheduleError) return failure({ error: { code: 'invalid_schedule', ...problemsRefusal(`Schedule ${name} is not valid`, error.problems) } });
    throw error;
  }
  return refusedArguments(refusal);
}
