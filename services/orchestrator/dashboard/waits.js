// One thing a run waits for, with the controls that answer it: a tool call to approve (as asked,
// or with arguments edited in a form made from the tool's schema) or to reject with a note; a
// signal to send from a form made from its schema. Shared by the Inbox page and a run's page.
// The call, its arguments and the model's reason are the model's words: text nodes only.
import { api } from './api.js';
import { h, shortId, when } from './dom.js';
import { schemaFields } from './schema-form.js';

/** The key an item is known by on a page, to keep its card (and a form being filled) across refreshes. */
let notes = 0;

export const itemKey = (item) => `${item.run_id}/${item.kind}/${item.key}`;

function parsedArguments(value) {
  return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

/**
 * A card for `item` (an inbox item of the API). `options.runLink` shows a link to its run;
 * `options.onAnswered` is told once the API took the answer.
 */
export function waitCard(item, options = {}) {
  const status = h('p', { class: 'notice', role: 'status', hidden: true });
  const error = h('p', { class: 'notice error', role: 'alert', hidden: true });
  const controls = h('div', { class: 'wait-controls' });
  const card = h(
    'article',
    { class: `wait card ${item.kind}`, dataset: { wait: itemKey(item), kind: item.kind } },
    h(
      'div',
      { class: 'row head' },
      h('h3', {}, item.kind === 'approval' ? `Approve ${item.tool ?? 'a tool call'}?` : `Signal ${item.key}`),
      h('span', { class: 'grow' }),
      options.runLink ? h('a', { href: `#/runs/${item.run_id}`, class: 'mono small' }, shortId(item.run_id)) : '',
    ),
    h('p', { class: 'muted small' }, `${item.pipeline} · stage ${item.stage} · waiting since ${when(item.created_at)}`, item.timeout_at ? ` · until ${new Date(item.timeout_at).toLocaleString()}` : ''),
    controls,
    error,
    status,
  );

  const answer = async (body, done) => {
    error.hidden = true;
    for (const button of card.querySelectorAll('button')) button.disabled = true;
    try {
      await api(item.answer_url, { method: 'POST', body });
      controls.remove();
      status.textContent = done;
      status.hidden = false;
      card.classList.add('answered');
      card.dataset.answeredAt = String(Date.now());
      options.onAnswered?.(item);
    } catch (failure) {
      error.textContent = String(failure.message ?? failure);
      error.hidden = false;
      for (const button of card.querySelectorAll('button')) button.disabled = false;
    }
  };
  const formFailure = (failure) => {
    error.textContent = String(failure.message ?? failure);
    error.hidden = false;
  };

  if (item.kind === 'approval') approvalControls(controls, item, { answer, formFailure });
  else signalControls(controls, item, { answer, formFailure });
  return card;
}

function approvalControls(root, item, { answer, formFailure }) {
  const asked = parsedArguments(item.arguments);
  const note = h('textarea', { id: `note-${++notes}`, name: 'note', rows: 2, maxlength: 2000, placeholder: 'Why (the model reads it)' });
  const editor = h('form', { class: 'edit-arguments', novalidate: true, hidden: true });
  let fields;
  const approve = h('button', { type: 'button', onclick: () => answer({ approve: true }, 'Approved') }, 'Approve');
  const reject = h('button', { type: 'button', class: 'danger', onclick: () => answer({ approve: false, ...(note.value.trim() ? { note: note.value.trim() } : {}) }, 'Rejected') }, 'Reject');
  const edit = h('button', { type: 'button', class: 'secondary' }, 'Edit arguments');
  edit.addEventListener('click', () => {
    if (!fields) {
      fields = schemaFields(item.schema ?? {}, asked);
      editor.append(fields.root, h('button', { type: 'submit' }, 'Approve with these arguments'));
    }
    editor.hidden = !editor.hidden;
  });
  editor.addEventListener('submit', (event) => {
    event.preventDefault();
    let edited;
    try {
      edited = fields.value();
    } catch (failure) {
      return formFailure(failure);
    }
    return answer({ approve: true, arguments: edited }, 'Approved with edited arguments');
  });
  root.append(
    item.reason ? h('blockquote', { class: 'reason' }, h('span', { class: 'result-label' }, 'reason'), item.reason) : '',
    h('pre', { class: 'json call-args' }, JSON.stringify(asked, null, 2)),
    h('div', { class: 'row' }, approve, edit, h('label', { for: note.id, class: 'grow' }, 'Note for a rejection', note), reject),
    editor,
  );
}

function signalControls(root, item, { answer, formFailure }) {
  const fields = schemaFields(item.schema ?? {}, undefined);
  const form = h('form', { class: 'signal-form', novalidate: true }, fields.root, h('button', { type: 'submit' }, 'Send signal'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    let payload;
    try {
      payload = fields.value();
    } catch (failure) {
      return formFailure(failure);
    }
    return answer(payload, 'Signal sent');
  });
  root.append(form);
}
