// Schedules by name, each with its timing, when its next run is due and the run its last tick
// started (with that run's status), refreshed every few seconds.
import { api } from './api.js';
import { badge, h, replace, shortId, when } from './dom.js';

const timing = (s) => (s.cron ? `cron ${s.cron}${s.timezone ? ` (${s.timezone})` : ''}` : `every ${typeof s.every === 'string' ? s.every : `${s.every_ms / 1000} s`}`);

function lastRun(s) {
  if (!s.last_run) return h('span', { class: 'muted' }, 'none yet');
  return h('span', {}, h('a', { href: `#/runs/${s.last_run.run_id}`, class: 'mono' }, shortId(s.last_run.run_id)), ' ', badge(s.last_run.status), ' ', h('span', { class: 'muted small' }, when(s.last_run.at)));
}

export async function schedulesView(ctx) {
  const body = h('tbody');
  const empty = h('p', { class: 'muted', hidden: true }, 'No schedules yet.');
  const load = async () => {
    const { schedules } = await api('/v1/schedules?limit=200');
    replace(
      body,
      schedules.map((s) =>
        h(
          'tr',
          { dataset: { schedule: s.name } },
          h('td', {}, s.name),
          h('td', {}, s.pipeline),
          h('td', { class: 'mono small' }, timing(s)),
          h('td', { dataset: { field: 'next' } }, s.paused ? badge('cancelled', 'paused') : s.next_run_at ? new Date(s.next_run_at).toLocaleString() : ''),
          h('td', { dataset: { field: 'last' } }, lastRun(s)),
        ),
      ),
    );
    empty.hidden = schedules.length > 0;
  };
  replace(ctx.root, h('section', { class: 'card' }, h('h2', {}, 'Schedules'), h('table', {}, h('thead', {}, h('tr', {}, ['Schedule', 'Pipeline', 'When', 'Next run', 'Last run'].map((c) => h('th', {}, c)))), body), empty));
  await load();
  const timer = setInterval(() => load().catch(() => undefined), 3000);
  ctx.onCleanup(() => clearInterval(timer));
}
