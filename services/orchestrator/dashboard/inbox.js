// The Inbox: what runs wait for (tool calls to approve, signals to send), oldest first, a page at a
// time, filtered by pipeline, each with the controls that answer it. Refreshed every few seconds;
// a card already shown is kept as it is, so a form being filled is not lost.
import { api } from './api.js';
import { h, replace } from './dom.js';
import { itemKey, waitCard } from './waits.js';

const PAGE = 20;
const REFRESH_MS = 3000;

/** How long a card answered stays shown after its item left the list, so its outcome can be read. */
const ANSWERED_LINGER_MS = 5000;

/**
 * Keeps `list` showing `items` in order: cards of items still listed stay (with what was typed in
 * them, or their outcome once answered), cards answered a moment ago stay a little, new ones are made.
 */
/** `load` one call at a time: a call made while one runs is answered by one more run after it. */
export function oneAtATime(load) {
  let running;
  let again = false;
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await load();
        } while (again);
      } finally {
        running = undefined;
      }
    })();
    return running;
  };
}

export function syncCards(list, items, makeCard) {
  const shown = new Map([...list.children].map((card) => [card.dataset.wait, card]));
  const cards = items.map((item) => shown.get(itemKey(item)) ?? makeCard(item));
  const listed = new Set(cards);
  const recent = [...shown.values()].filter((card) => !listed.has(card) && Date.now() - Number(card.dataset.answeredAt ?? 0) < ANSWERED_LINGER_MS);
  list.replaceChildren(...cards, ...recent);
}

export async function inboxView(ctx) {
  const params = new URLSearchParams(location.hash.split('?')[1] ?? '');
  let offset = Math.max(0, Number(params.get('offset')) || 0);
  let pipeline = params.get('pipeline') ?? '';
  const list = h('div', { class: 'waits' });
  const empty = h('p', { class: 'muted', hidden: true }, 'Nothing waits.');
  const counts = h('span', { class: 'muted small' });
  const filter = h('input', { id: 'inbox-pipeline', name: 'pipeline', type: 'search', value: pipeline, placeholder: 'any pipeline' });
  const previous = h('button', { type: 'button', class: 'secondary' }, '← Older');
  const next = h('button', { type: 'button', class: 'secondary' }, 'Newer →');

  const load = oneAtATime(async () => {
    const query = new URLSearchParams({ offset: String(offset), limit: String(PAGE), ...(pipeline ? { pipeline } : {}) });
    const page = await api(`/v1/inbox?${query}`);
    syncCards(list, page.items, (item) => waitCard(item, { runLink: true }));
    empty.hidden = page.items.length > 0;
    counts.textContent = page.total > 0 ? `${page.offset + 1}–${page.offset + page.items.length} of ${page.total}` : '';
    previous.disabled = offset === 0;
    next.disabled = page.next_offset === null;
  });
  const go = (to) => {
    offset = Math.max(0, to);
    void load().catch(() => undefined);
  };
  previous.addEventListener('click', () => go(offset - PAGE));
  next.addEventListener('click', () => go(offset + PAGE));
  const form = h('form', { class: 'row', role: 'search', onsubmit: (event) => (event.preventDefault(), (pipeline = filter.value.trim()), go(0)) }, h('label', { for: filter.id, class: 'filter' }, 'Pipeline', filter), h('button', { type: 'submit' }, 'Filter'));

  replace(ctx.root, h('section', { class: 'card' }, h('div', { class: 'row head' }, h('h2', {}, 'Inbox'), counts), h('p', { class: 'muted small' }, 'What runs wait for, oldest first: tool calls to approve and signals to send.'), form), list, empty, h('div', { class: 'row' }, previous, next));
  await load();
  const timer = setInterval(() => load().catch(() => undefined), REFRESH_MS);
  ctx.onCleanup(() => clearInterval(timer));
}
