// Batches, newest first, and one batch's counts and runs.
import { api } from './api.js';
import { dollars } from './agent.js';
import { badge, h, replace, shortId, when } from './dom.js';

const STATUSES = ['queued', 'running', 'waiting', 'completed', 'failed', 'cancelled'];

const counts = (batch) => h('span', { class: 'counts small' }, STATUSES.filter((s) => batch.counts[s]).map((s) => h('span', { class: `count ${s}` }, `${batch.counts[s]} ${s}`)));

export async function batchesView(ctx) {
  const body = h('tbody');
  const empty = h('p', { class: 'muted', hidden: true }, 'No batches yet.');
  const load = async () => {
    const { batches } = await api('/v1/batches?limit=50');
    replace(
      body,
      batches.map((b) =>
        h(
          'tr',
          { dataset: { batchId: b.batch_id } },
          h('td', {}, h('a', { href: `#/batches/${b.batch_id}`, class: 'mono' }, shortId(b.batch_id))),
          h('td', {}, b.pipeline ?? ''),
          h('td', {}, badge(b.status === 'done' ? 'completed' : 'running', b.status)),
          h('td', {}, `${b.total}`),
          h('td', {}, counts(b), b.cost_usd ? h('span', { class: 'batch-cost small' }, ` · ${dollars(b.cost_usd)}`) : ''),
          h('td', { class: 'muted' }, when(b.created_at)),
        ),
      ),
    );
    empty.hidden = batches.length > 0;
  };
  replace(ctx.root, h('section', { class: 'card' }, h('h2', {}, 'Batches'), h('table', {}, h('thead', {}, h('tr', {}, ['Batch', 'Pipeline', 'Status', 'Runs', 'Counts', 'Created'].map((c) => h('th', {}, c)))), body), empty));
  await load();
  const timer = setInterval(() => load().catch(() => undefined), 3000);
  ctx.onCleanup(() => clearInterval(timer));
}

export async function batchView(ctx, batchId) {
  const head = h('div', {});
  const body = h('tbody');
  const load = async () => {
    const batch = await api(`/v1/batches/${batchId}?limit=1000`);
    replace(head, h('div', { class: 'row head' }, h('h1', {}, 'Batch'), h('span', { class: 'mono' }, batch.batch_id), badge(batch.status === 'done' ? 'completed' : 'running', batch.status)), h('p', { class: 'muted small' }, `${batch.total} runs · ${batch.dispatched} dispatched · created ${when(batch.created_at)} · `, counts(batch), batch.cost_usd ? h('span', { class: 'batch-cost' }, ` · ${dollars(batch.cost_usd)}`) : ''));
    replace(body, batch.runs.map((r) => h('tr', {}, h('td', {}, h('a', { href: `#/runs/${r.run_id}`, class: 'mono' }, r.run_id)), h('td', {}, badge(r.status)))));
    return batch.status === 'done';
  };
  replace(ctx.root, h('p', {}, h('a', { href: '#/batches' }, '← Batches')), h('section', { class: 'card' }, head, h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Run'), h('th', {}, 'Status'))), body)));
  if (await load()) return;
  const timer = setInterval(() => load().then((done) => done && clearInterval(timer)).catch(() => undefined), 2000);
  ctx.onCleanup(() => clearInterval(timer));
}
