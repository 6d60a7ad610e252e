/**
 * A strict reader of the Prometheus text exposition format (0.0.4), for tests: every line must be
 * a HELP, a TYPE, a comment or a sample of the family its TYPE declared; names, label names and
 * escapes as the format defines them; no series twice; a family's samples together; a
 * histogram's buckets cumulative, ending in `+Inf` equal to its `_count`. Anything else throws,
 * naming the line. (The npm parser of the format folds the labelled series of a histogram into
 * one, so it cannot check what we publish.)
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES: Record<MetricFamily['type'], readonly string[]> = { counter: ['', '_total'], gauge: [''], untyped: [''], histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'] };

/** A float as Prometheus reads one (Go's ParseFloat: NaN and Inf in any case, as prom-client's `Nan`). */
function parseValue(text: string, where: string): number {
  const word = text.toLowerCase();
  if (word === 'nan') return Number.NaN;
  if (['inf', '+inf', 'infinity', '+infinity'].includes(word)) return Number.POSITIVE_INFINITY;
  if (['-inf', '-infinity'].includes(word)) return Number.NEGATIVE_INFINITY;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`${where}: ${JSON.stringify(text)} is not a number`);
  return Number(text);
}

/** Reads `{a="b",…}` from `line` at `start` (its `{`); returns the labels and where they end. */
function parseLabels(line: string, start: number, where: string): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = start + 1;
  for (;;) {
    if (line[i] === '}') return { labels, end: i + 1 };
    const eq = line.indexOf('=', i);
    const name = line.slice(i, eq).trim();
    if (eq < 0 || !LABEL_NAME.test(name)) throw new Error(`${where}: bad label name ${JSON.stringify(name)}`);
    if (name in labels) throw new Error(`${where}: label ${name} given twice`);
    if (line[eq + 1] !== '"') throw new Error(`${where}: the value of ${name} is not quoted`);
    let value = '';
    let j = eq + 2;
    for (; j < line.length && line[j] !== '"'; j += 1) {
      if (line[j] !== '\\') value += line[j];
      else {
        const next = line[(j += 1)];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else throw new Error(`${where}: bad escape \\${next ?? ''} in ${name}`);
      }
    }
    if (j >= line.length) throw new Error(`${where}: the value of ${name} is not closed`);
    labels[name] = value;
    i = j + 1;
    if (line[i] === ',') i += 1;
    else if (line[i] !== '}') throw new Error(`${where}: expected , or } after ${name}`);
  }
}

function checkHistogram(family: MetricFamily): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number }>();
  for (const s of family.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (s.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${family.name}: a bucket without le`);
      entry.buckets.push([parseValue(le, family.name), s.value]);
    } else if (s.name.endsWith('_count')) entry.count = s.value;
  }
  for (const [key, { buckets, count }] of series) {
    const last = buckets.at(-1);
    if (!last || last[0] !== Number.POSITIVE_INFINITY || last[1] !== count) throw new Error(`${family.name}${key}: the +Inf bucket must be last and equal _count`);
    buckets.forEach(([le, n], i) => {
      const before = buckets[i - 1];
      if (before && (before[0] >= le || before[1] > n)) throw new Error(`${family.name}${key}: buckets are not cumulative at le=${le}`);
    });
  }
}

export function parseExposition(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const seen = new Set<string>();
  const helps = new Map<string, string>();
  let current: MetricFamily | undefined;
  text.split('\n').forEach((line, index) => {
    const where = `line ${index + 1}`;
    if (line.trim() === '') return;
    const meta = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line);
    if (meta) {
      const [, kind, name = '', rest = ''] = meta;
      if (!METRIC_NAME.test(name)) throw new Error(`${where}: bad metric name ${name}`);
      if (kind === 'HELP') return void helps.set(name, rest);
      if (!TYPES.has(rest)) throw new Error(`${where}: unknown type ${rest}`);
      if (families.has(name)) throw new Error(`${where}: a second TYPE for ${name}`);
      current = { name, type: rest as MetricFamily['type'], help: helps.get(name) ?? '', samples: [] };
      families.set(name, current);
      return;
    }
    if (line.startsWith('#')) return;
    const nameEnd = line.search(/[{ ]/);
    const name = nameEnd < 0 ? line : line.slice(0, nameEnd);
    if (!METRIC_NAME.test(name)) throw new Error(`${where}: bad metric name ${JSON.stringify(name)}`);
    const { labels, end } = line[nameEnd] === '{' ? parseLabels(line, nameEnd, where) : { labels: {}, end: nameEnd };
    const [value, timestamp, ...extra] = line.slice(end).trim().split(/\s+/);
    if (value === undefined || extra.length > 0 || (timestamp !== undefined && !/^-?\d+$/.test(timestamp))) throw new Error(`${where}: expected a value and at most a timestamp`);
    if (!current || !SUFFIXES[current.type].some((suffix) => `${current?.name}${suffix}` === name)) throw new Error(`${where}: ${name} is not a sample of the family declared before it`);
    const id = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(id)) throw new Error(`${where}: the series ${id} appears twice`);
    seen.add(id);
    current.samples.push({ name, labels, value: parseValue(value, where) });
  });
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

/** The sum of the samples named `name` whose labels include `labels` (0 when there are none). */
export function sampleSum(families: Map<string, MetricFamily>, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const family of families.values()) {
    for (const s of family.samples) if (s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) sum += s.value;
  }
  return sum;
}

/** Every label value of every sample, to check that none names a run. */
export function labelValues(families: Map<string, MetricFamily>): string[] {
  return [...families.values()].flatMap((family) => family.samples.flatMap((s) => Object.values(s.labels)));
}
