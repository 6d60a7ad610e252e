// The dashboard: a hash router over the runs list, a run's page, the batches, the schedules and the inbox, and the key form
// shown whenever the API answers 401.
import { closeSession, openSession, sessionOpen, Unauthorized } from './api.js';
import { h, replace } from './dom.js';
import { batchesView, batchView } from './batches.js';
import { inboxView } from './inbox.js';
import { runView } from './run.js';
import { runsView } from './runs.js';
import { schedulesView } from './schedules.js';

const app = document.getElementById('app');
const signOut = document.getElementById('sign-out');
/** What the current view must stop (timers, event streams) when the page changes. */
let cleanup = [];

function route() {
  const hash = location.hash.replace(/^#/, '') || '/';
  let match;
  if ((match = /^\/runs\/([\w-]+)$/.exec(hash))) return { nav: 'runs', view: (ctx) => runView(ctx, match[1]) };
  if ((match = /^\/batches\/([\w-]+)$/.exec(hash))) return { nav: 'batches', view: (ctx) => batchView(ctx, match[1]) };
  if (hash === '/batches') return { nav: 'batches', view: batchesView };
  if (hash === '/schedules') return { nav: 'schedules', view: schedulesView };
  if (/^\/inbox(\?.*)?$/.test(hash)) return { nav: 'inbox', view: inboxView };
  return { nav: 'runs', view: runsView };
}

async function render() {
  for (const stop of cleanup.splice(0)) stop();
  const { nav, view } = route();
  for (const link of document.querySelectorAll('[data-nav]')) link.classList.toggle('active', link.dataset.nav === nav);
  const ctx = { root: app, onCleanup: (stop) => cleanup.push(stop), unauthorized: showKeyForm };
  try {
    await view(ctx);
    signOut.hidden = false;
  } catch (error) {
    if (error instanceof Unauthorized) showKeyForm();
    else replace(app, h('p', { class: 'notice error', role: 'alert' }, String(error.message ?? error)));
  }
}

function showKeyForm(message) {
  for (const stop of cleanup.splice(0)) stop();
  signOut.hidden = true;
  const input = h('input', { id: 'api-key', name: 'key', type: 'password', autocomplete: 'off', required: true, placeholder: 'sy_…' });
  const error = h('p', { class: 'notice error', role: 'alert', hidden: !message }, message ?? '');
  const submit = h('button', { type: 'submit' }, 'Open dashboard');
  const form = h(
    'form',
    {
      class: 'key-form card',
      onsubmit: async (event) => {
        event.preventDefault();
        submit.disabled = true;
        error.hidden = true;
        try {
          if (await openSession(input.value)) return void render();
          error.textContent = 'That API key is not valid.';
          error.hidden = false;
          input.select();
        } catch (failure) {
          error.textContent = String(failure.message ?? failure);
          error.hidden = false;
        } finally {
          submit.disabled = false;
        }
      },
    },
    h('h1', {}, 'Switchyard'),
    h('p', { class: 'muted' }, 'Give the API key once; it is kept for this browser session only.'),
    h('label', { for: 'api-key' }, 'API key'),
    input,
    submit,
    error,
  );
  replace(app, form);
  input.focus();
}

signOut.addEventListener('click', async () => {
  await closeSession();
  showKeyForm();
});
window.addEventListener('hashchange', render);
sessionOpen().then((open) => (open ? render() : showKeyForm()), () => render());

