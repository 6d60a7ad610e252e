// The runs, newest first, filtered by status and pipeline; a form to start a story.
import { api, Unauthorized } from './api.js';
import { badge, h, progressBar, replace, shortId, when } from './dom.js';

const STATUSES = ['queued', 'running', 'waiting', 'completed', 'failed', 'cancelled'];
const filters = { status: '', pipeline: '' };

function runRow(run) {
  return h(
    'tr',
    { dataset: { runId: run.run_id, status: run.status } },
    // A listing carries the input's topic, never the input itself.
    h('td', {}, h('a', { href: `#/runs/${run.run_id}` }, run.topic || shortId(run.run_id))),
    h('td', { class: 'mono' }, shortId(run.run_id)),
    h('td', {}, run.pipeline ? `${run.pipeline.name} v${run.pipeline.version}` : run.kind),
    h('td', {}, badge(run.status)),
    h('td', {}, progressBar(run.progress), h('span', { class: 'muted small' }, `${run.progress}%`)),
    h('td', { class: 'muted' }, when(run.created_at)),
    h('td', {}, run.batch_id ? h('a', { href: `#/batches/${run.batch_id}`, class: 'mono' }, shortId(run.batch_id)) : ''),
  );
}

function select(label, id, values, current, onchange) {
  return h('label', { class: 'filter' }, label, h('select', { id, onchange: (e) => onchange(e.target.value) }, h('option', { value: '' }, 'all'), values.map((v) => h('option', { value: v, selected: v === current }, v))));
}

function storyForm() {
  const topic = h('input', { id: 'story-topic', name: 'topic', required: true, maxlength: 500, placeholder: 'a lighthouse keeper who collects lost letters' });
  const style = h('input', { id: 'story-style', name: 'style', maxlength: 50, placeholder: 'descriptive' });
  const error = h('p', { class: 'notice error', role: 'alert', hidden: true });
  return h(
    'form',
    {
      class: 'card start',
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          const accepted = await api('/v1/stories', { method: 'POST', body: { topic: topic.value, ...(style.value ? { style: style.value } : {}) } });
          location.hash = `#/runs/${accepted.run_id}`;
        } catch (failure) {
          error.textContent = failure.message;
          error.hidden = false;
        }
      },
    },
    h('h2', {}, 'Start a story'),
    h('div', { class: 'row' }, h('label', { class: 'grow' }, 'Topic', topic), h('label', {}, 'Style', style), h('button', { type: 'submit' }, 'Start story')),
    error,
  );
}

export async function runsView(ctx) {
  const pipelines = (await api('/v1/pipelines?limit=500')).pipelines.map((p) => p.name);
  const body = h('tbody');
  const empty = h('p', { class: 'muted', hidden: true }, 'No runs yet.');
  const load = async () => {
    const query = new URLSearchParams({ limit: '50', ...(filters.status ? { status: filters.status } : {}), ...(filters.pipeline ? { pipeline: filters.pipeline } : {}) });
    const { runs } = await api(`/v1/runs?${query}`);
    replace(body, runs.map(runRow));
    empty.hidden = runs.length > 0;
  };
  const refilter = (key) => (value) => {
    filters[key] = value;
    load().catch(() => undefined);
  };
  replace(
    ctx.root,
    storyForm(),
    h(
      'section',
      { class: 'card' },
      h('div', { class: 'row head' }, h('h2', {}, 'Runs'), select('Status', 'filter-status', STATUSES, filters.status, refilter('status')), select('Pipeline', 'filter-pipeline', pipelines, filters.pipeline, refilter('pipeline'))),
      h('table', { class: 'runs' }, h('thead', {}, h('tr', {}, ['Topic', 'Run', 'Pipeline', 'Status', 'Progress', 'Created', 'Batch'].map((c) => h('th', {}, c)))), body),
      empty,
    ),
  );
  await load();
  const timer = setInterval(() => load().catch((e) => (e instanceof Unauthorized ? ctx.unauthorized() : undefined)), 2000);
  ctx.onCleanup(() => clearInterval(timer));
}
