/**
 * Reading the bridge's resources: a run as its run view (the JSON `get_run` answers), a finished
 * story as Markdown, a batch as its batch view, a pipeline with its versions, and one version's
 * definition. Text contents as the spec shapes them: `{uri, mimeType, text}`. A URI that names
 * nothing is the spec's resource-not-found error (-32002).
 */
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { RunView, StoryResult } from '@switchyard/contracts';
import { findRun, toRunView, type BatchStore, type PipelineStore, type RunRecord, type RunStore, type RunViewer } from '@switchyard/pipeline';
import { parseResourceUri, uris, type ResourceTarget } from './uris.js';

export interface ResourceReadDeps {
  store: RunStore;
  batches: BatchStore;
  pipelines: PipelineStore;
  /** Who reads: another caller's API key id in a run's `flow` is shown only to admin keys (default: hidden). */
  viewer?: RunViewer | undefined;
}

/** Runs of a batch shown in its resource, from the first: the view's `total` tells when there are more. */
export const BATCH_RUNS_SHOWN = 1000;

/** The spec's "Resource not found", as a plain error so that the SDK sends code and data as they are. */
export const RESOURCE_NOT_FOUND = -32002;
export function resourceNotFound(uri: string, message: string): Error & { code: number; data: unknown } {
  return Object.assign(new Error(message), { code: RESOURCE_NOT_FOUND, data: { uri } });
}

const json = (uri: string, value: unknown): ReadResourceResult => ({ contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }] });

/** A completed run's story, when its result is one (the story pipeline's, or any of that shape). */
export function storyOf(run: RunRecord): StoryResult | undefined {
  if (run.status !== 'completed') return undefined;
  const parsed = StoryResult.safeParse(run.result);
  return parsed.success ? parsed.data : undefined;
}

/** The story as Markdown: title, the polished text, its sections, and a footer naming the run. */
export function storyMarkdown(run: RunRecord, story: StoryResult): string {
  const topic = run.request && typeof run.request === 'object' && 'topic' in run.request ? String(run.request.topic) : undefined;
  const sections = story.sections.map((section, i) => `${i + 1}. **${section.title}** (${section.name}, ${section.word_count} words)`);
  return [
    `# ${story.title}`,
    '',
    story.content.trim(),
    '',
    '---',
    '',
    '## Sections',
    '',
    ...sections,
    '',
    `*${story.word_count} words${topic ? ` · topic: ${topic}` : ''} · run ${run.id}*`,
    '',
  ].join('\n');
}

export async function readResource(deps: ResourceReadDeps, uri: string): Promise<ReadResourceResult> {
  const target = parseResourceUri(uri);
  if (!target) throw resourceNotFound(uri, `No resource ${uri}: the bridge serves switchyard://runs/…, …/story.md, switchyard://batches/… and switchyard://pipelines/…`);
  return readTarget(deps, uri, target);
}

async function readTarget(deps: ResourceReadDeps, uri: string, target: ResourceTarget): Promise<ReadResourceResult> {
  switch (target.kind) {
    case 'run': {
      const run = await findRun(deps, target.runId);
      if (!run) throw resourceNotFound(uri, `No run ${target.runId}`);
      return json(uri, RunView.parse(toRunView(run, deps.viewer)));
    }
    case 'story': {
      const run = await findRun(deps, target.runId);
      if (!run) throw resourceNotFound(uri, `No run ${target.runId}`);
      const story = storyOf(run);
      if (!story) throw resourceNotFound(uri, run.status === 'completed' ? `Run ${run.id} (${run.kind}) did not write a story` : `Run ${run.id} has no story yet: it is ${run.status}`);
      return { contents: [{ uri, mimeType: 'text/markdown', text: storyMarkdown(run, story) }] };
    }
    case 'batch': {
      const batch = await deps.batches.getBatch(target.batchId, { offset: 0, limit: BATCH_RUNS_SHOWN });
      if (!batch) throw resourceNotFound(uri, `No batch ${target.batchId}`);
      return json(uri, { ...batch, runs: batch.runs.map((run) => ({ ...run, uri: uris.run(run.run_id) })) });
    }
    case 'pipeline': {
      const versions = await deps.pipelines.versions(target.name);
      const latest = versions.at(-1);
      if (!latest) throw resourceNotFound(uri, `No pipeline ${target.name}`);
      return json(uri, {
        name: target.name,
        latest: latest.definition.version,
        description: latest.definition.description,
        versions: versions.map((v) => ({ version: v.definition.version, registered_at: v.registered_at, uri: uris.pipelineVersion(target.name, v.definition.version) })),
        definition: latest.definition,
      });
    }
    case 'pipelineVersion': {
      const stored = await deps.pipelines.get(target.name, target.version);
      if (!stored) throw resourceNotFound(uri, `No version ${target.version} of pipeline ${target.name}`);
      return json(uri, { ...stored.definition, registered_at: stored.registered_at });
    }
  }
}
