/**
 * The orchestrator's OpenAPI 3.1 document, generated from the zod schemas the routes use
 * (zod-openapi, over zod's own JSON Schema conversion). Served at `GET /openapi.json`.
 */
import { createRequire } from 'node:module';
import { createDocument, type oas31, type ZodOpenApiOverride } from 'zod-openapi';
import {
  AceflowRunAccepted,
  AceflowRunRequest,
  ApiErrorBody,
  BatchAccepted,
  BatchEventSchemas,
  BatchRequest,
  BatchList,
  BatchView,
  OrchestratorHealth,
  PipelineBatchRequest,
  PipelineRunAccepted,
  RunAccepted,
  ScheduleList,
  ScheduleRequest,
  ScheduleView,
  RunError,
  RunEventSchemas,
  RunList,
  RunSummary,
  RunStatus,
  RunView,
  StageView,
  StoryRequest,
} from '@switchyard/contracts';
import { PipelineList, PipelineRegistered, PipelineView, StoredDefinition } from '../routes/pipeline-shapes.js';
import { SECURITY_SCHEMES, withAccessRules } from './common.js';
import { dashboardPaths } from './dashboard-paths.js';
import { pipelinePaths } from './pipeline-paths.js';
import { pruneSchemas } from './prune.js';
import { runPaths } from './run-paths.js';
import { schedulePaths } from './schedule-paths.js';
import { waitPaths } from './wait-paths.js';

const { version: PACKAGE_VERSION } = createRequire(import.meta.url)('../../package.json') as { version: string };

export interface OpenApiDocumentOptions {
  /** The API's version, shown in `info.version` (default: the orchestrator package's version). */
  version?: string;
}

const DEFINITION_REF = '#/components/schemas/PipelineDefinition';

/**
 * A stored definition is valid input of the format, and only the input form has a JSON Schema
 * (durations are transforms): it is described by a reference to the format's component.
 */
const describeStoredDefinition: ZodOpenApiOverride = ({ zodSchema, jsonSchema }) => {
  if (zodSchema !== StoredDefinition) return;
  for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
  Object.assign(jsonSchema, { $ref: DEFINITION_REF, description: 'As registered, with its defaults filled and durations in ms' });
};

const eventComponents = (prefix: string, events: Record<string, unknown>) => Object.fromEntries(Object.entries(events).map(([name, schema]) => [`${prefix}${name[0]?.toUpperCase() ?? ''}${name.slice(1)}Event`, schema]));

export function createOpenApiDocument(options: OpenApiDocumentOptions = {}): oas31.OpenAPIObject {
  const document = createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'Switchyard orchestrator',
        version: options.version ?? PACKAGE_VERSION,
        description:
          'Runs multi-agent pipelines as jobs on BullMQ over Redis. Every `/v1` route needs an API key, as `Authorization: Bearer KEY` or `X-API-Key: KEY`, holding the scope its operation names in `security` (`read`, `run` or `admin`; a key configured without scopes holds all three, and each implies `read`). Errors are `{error:{code,message,details}}`; a method a path does not take answers 405 with `Allow`.',
      },
      security: SECURITY_SCHEMES.map((scheme) => ({ [scheme]: [] })),
      tags: [
        { name: 'runs', description: 'Start, read, follow and cancel runs' },
        { name: 'batches', description: 'Many runs at once' },
        { name: 'pipelines', description: 'Pipeline definitions and their runs' },
        { name: 'schedules', description: 'Pipelines run on a cron pattern or at an interval' },
        { name: 'service', description: 'Health and this document (no key needed)' },
        { name: 'dashboard', description: 'The run dashboard and its browser session' },
      ],
      paths: withAccessRules({ ...runPaths, ...waitPaths, ...pipelinePaths, ...schedulePaths, ...dashboardPaths }),
      components: {
        securitySchemes: {
          bearerKey: { type: 'http', scheme: 'bearer', description: 'An API key of `API_KEYS`, as `Authorization: Bearer KEY`' },
          headerKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'The same key in `X-API-Key` (checked first when both are sent)' },
          sessionCookie: { type: 'apiKey', in: 'cookie', name: 'sy_session', description: 'A browser session opened by `POST /ui/session` with the key' },
        },
        schemas: {
          Error: ApiErrorBody,
          StoryRequest,
          BatchRequest,
          PipelineBatchRequest,
          AceflowRunRequest,
          RunAccepted,
          AceflowRunAccepted,
          PipelineRunAccepted,
          BatchAccepted,
          RunStatus,
          RunError,
          StageView,
          RunView,
          RunSummary,
          RunList,
          BatchView,
          BatchList,
          PipelineList,
          PipelineView,
          PipelineRegistered,
          ScheduleRequest,
          ScheduleView,
          ScheduleList,
          OrchestratorHealth,
          ...eventComponents('Run', RunEventSchemas),
          ...eventComponents('Batch', BatchEventSchemas),
        },
      },
    },
    { override: describeStoredDefinition },
  );
  return pruneSchemas(document);
}
