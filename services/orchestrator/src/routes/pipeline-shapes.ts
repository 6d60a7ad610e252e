/**
 * What the pipeline routes take and answer. They live here rather than in the contracts package
 */
import { z } from 'zod';
import { PageMarks } from '@switchyard/contracts';
import { MAX_VERSION, PipelineDefinition } from '@switchyard/pipeline';
import { PriorityQuery } from '../flow-caller.js';

/**
 * A definition as stored: the one registered, with its defaults filled and durations in ms. It
 * is valid input as it is, so the OpenAPI document describes it with the definition format (see
 * `openapi/document.ts`); here it stays an object, since the format's durations are transforms,
 * which have no JSON Schema as output.
 */
export const StoredDefinition = z.record(z.string(), z.unknown());

/** `GET /v1/pipelines`: pipelines in the order their latest version was registered, each by that version, a page at a time. */
export const PipelineList = z.object({
  pipelines: z.array(z.object({ name: z.string(), latest: z.number().int().positive(), description: z.string(), registered_at: z.string() })),
  offset: z.number().int().nonnegative(),
  limit: z.number().int().positive(),
  ...PageMarks.shape,
});

/** The query of `GET /v1/pipelines`. */
export const PipelineListQuery = z.object({
  offset: z.coerce.number().int().min(0).default(0).describe('Pipelines to skip, in the order their latest version was registered'),
  limit: z.coerce.number().int().min(1).max(500).default(100).describe('Most pipelines in the page; a page also stops before passing the listing budget (`LIST_PAGE_MAX_BYTES`)'),
});
export type PipelineList = z.infer<typeof PipelineList>;

/** `GET /v1/pipelines/{name}`: the latest definition and every version. */
export const PipelineView = z.object({
  name: z.string(),
  latest: z.number().int().positive(),
  description: z.string(),
  definition: StoredDefinition,
  versions: z.array(z.object({ version: z.number().int().positive(), registered_at: z.string(), definition: StoredDefinition })),
});
export type PipelineView = z.infer<typeof PipelineView>;

/** `PUT /v1/pipelines/{name}`: 201 `created`, or 200 `unchanged` when that definition is already there. */
export const PipelineRegistered = z.object({
  name: z.string(),
  version: z.number().int().positive(),
  outcome: z.enum(['created', 'unchanged']),
});
export type PipelineRegistered = z.infer<typeof PipelineRegistered>;

/** The query of `POST /v1/pipelines/{name}/runs`. */
export const VersionQuery = z.object({
  version: z.coerce.number().int().positive().max(MAX_VERSION).optional().describe('The version to run (default: the latest)'),
  notify_url: z.string().min(1).max(2048).optional().describe("A webhook told once when the run ends (`notify.url`): its summary POSTed, signed with `Switchyard-Signature`; its host must be in `WEBHOOK_ALLOW`, or the run is refused with 400"),
  priority: PriorityQuery,
});

/** The path of `DELETE /v1/pipelines/{name}/versions/{version}`. */
export const VersionParam = z.object({ version: z.string().regex(/^[1-9][0-9]{0,9}$/).describe(`A version, 1 to ${MAX_VERSION}`) });

/** `DELETE /v1/pipelines/{name}`: the versions deleted. Runs already started on them go on. */
export const PipelineDeleted = z.object({
  name: z.string(),
  outcome: z.literal('deleted'),
  versions: z.array(z.number().int().positive()).describe('The versions deleted (none for a pipeline stored with no valid version)'),
});
export type PipelineDeleted = z.infer<typeof PipelineDeleted>;

/** `DELETE /v1/pipelines/{name}/versions/{version}`: the version deleted and the latest left. */
export const PipelineVersionDeleted = z.object({
  name: z.string(),
  version: z.number().int().positive(),
  outcome: z.literal('deleted'),
  latest: z.number().int().positive().nullable().describe('The latest version left, or null when none is (the pipeline is gone)'),
});
export type PipelineVersionDeleted = z.infer<typeof PipelineVersionDeleted>;

/**
 * The body of `PUT /v1/pipelines/{name}`, as JSON or YAML: a definition, whose `name` may be left
 * out (the path gives it). `validateDefinition` checks it with the format itself. Its `id` names
 * its component in the OpenAPI document, where it is registered by use rather than by hand: by
 * hand, a component is also rendered as output, which the format's durations (transforms) are not.
 */
export const DefinitionBody = PipelineDefinition.partial({ name: true }).meta({ id: 'PipelineDefinition' });

/** The body of `POST /v1/pipelines/{name}/runs`: checked against the pipeline's own `input` schema. */
export const PipelineRunInput = z.record(z.string(), z.unknown()).describe("The run's input, checked against the pipeline's `input` JSON Schema");
