/**
 * Label values that come from what users define — pipeline names, their steps, the tools they
 * call — are bounded: every distinct value is a series of its own (a stage's histogram is
 * seventeen per outcome), kept for the life of the process, so a user registering thousands of
 * pipelines could otherwise grow `/metrics` without end. Each label set admits the values the
 * deployment ships (the shipped pipelines and their steps) and the first ones it meets up to a
 * cap; any later value is counted under `other`, and the folding itself is counted
 * (`switchyard_metric_labels_folded_total`), so that a dashboard can say when it happens.
 */
import { Counter, type Registry } from 'prom-client';

/** The label value a value past its budget is counted under. */
export const OTHER_LABEL = 'other';

export interface SeriesLimits {
  /** Pipelines labelled by name, besides the shipped ones (default 20); later pipelines are `other`. */
  maxPipelines?: number;
  /** Pipeline steps (pipeline and stage) labelled by name, besides the shipped pipelines' (default 100); later steps are stage `other`. */
  maxStages?: number;
  /** Tools (service and tool) labelled by name (default 100); later tools are `other`. */
  maxTools?: number;
  /** Fair-share keys (API keys, a pipeline's `fairness.key` values) labelled by name (default 20); later keys are `other`. */
  maxFairKeys?: number;
}

export const DEFAULT_SERIES_LIMITS: Required<SeriesLimits> = { maxPipelines: 20, maxStages: 100, maxTools: 100, maxFairKeys: 20 };

/** The first `max` distinct values met, and those always kept; nothing else. */
export class LabelBudget {
  readonly #kept: ReadonlySet<string>;
  readonly #admitted = new Set<string>();
  readonly #max: number;

  constructor(max: number, keep: Iterable<string> = []) {
    this.#max = max;
    this.#kept = new Set(keep);
  }

  /** Distinct values admitted besides the kept ones. */
  get size(): number {
    return this.#admitted.size;
  }

  /** Whether `value` has (or now takes) a place. */
  admit(value: string): boolean {
    if (this.#kept.has(value) || this.#admitted.has(value)) return true;
    if (this.#admitted.size >= this.#max) return false;
    this.#admitted.add(value);
    return true;
  }
}

/** The labels user-defined names are counted under, bounded per label set. */
export interface MetricLabels {
  pipeline(pipeline: string): string;
  stage(pipeline: string, stage: string): { pipeline: string; stage: string };
  tool(service: string, tool: string): { service: string; tool: string };
  /** A fair-share key (the first MAX_FAIR_KEYS met, the rest `other`). */
  fairKey(key: string): string;
}

export interface MetricLabelsOptions extends SeriesLimits {
  /** Always labelled by name: the shipped pipelines, each with its step names. */
  shipped?: Readonly<Record<string, readonly string[]>>;
}

const pair = (a: string, b: string) => `${a}\u0000${b}`;

/** One process part's bounded labels, counting what it folds in `registry`. */
export function metricLabels(registry: Registry, options: MetricLabelsOptions = {}): MetricLabels {
  const limits = { ...DEFAULT_SERIES_LIMITS, ...options };
  const shipped = Object.entries(options.shipped ?? {});
  const pipelines = new LabelBudget(limits.maxPipelines, shipped.map(([name]) => name));
  const stages = new LabelBudget(limits.maxStages, shipped.flatMap(([name, steps]) => steps.map((step) => pair(name, step))));
  const tools = new LabelBudget(limits.maxTools);
  const fairKeys = new LabelBudget(limits.maxFairKeys);
  const folded = new Counter({ name: 'switchyard_metric_labels_folded_total', help: `Observations counted under the label value "${OTHER_LABEL}" because their pipeline, stage, tool or fair-share key was past its budget of distinct values (METRICS_MAX_PIPELINES, METRICS_MAX_STAGES, METRICS_MAX_TOOLS, METRICS_MAX_FAIR_KEYS), by label.`, labelNames: ['label'], registers: [registry] });
  const pipeline = (name: string) => {
    if (pipelines.admit(name)) return name;
    folded.inc({ label: 'pipeline' });
    return OTHER_LABEL;
  };
  return {
    pipeline,
    // One observation folded is counted once, under the label set it was folded in.
    stage(pipelineName, stage) {
      const named = pipelines.admit(pipelineName);
      if (named && stages.admit(pair(pipelineName, stage))) return { pipeline: pipelineName, stage };
      folded.inc({ label: 'stage' });
      return { pipeline: named ? pipelineName : OTHER_LABEL, stage: OTHER_LABEL };
    },
    fairKey(key) {
      if (fairKeys.admit(key)) return key;
      folded.inc({ label: 'fair_key' });
      return OTHER_LABEL;
    },
    tool(service, tool) {
      if (tools.admit(pair(service, tool))) return { service, tool };
      folded.inc({ label: 'tool' });
      return { service, tool: OTHER_LABEL };
    },
  };
}
