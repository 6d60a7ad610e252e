// Builds DOM nodes. Strings become text nodes, never HTML: nothing a run holds is parsed as markup.
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else if (name === 'dataset') Object.assign(node.dataset, value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

export function append(node, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function replace(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

export const TERMINAL = ['completed', 'failed', 'cancelled'];

/** A status as a coloured label; `label` when the words differ from the status (a batch is `done`). */
export function badge(status, label) {
  return h('span', { class: `badge ${status ?? 'gone'}`, dataset: { status: status ?? 'gone' } }, label ?? status ?? 'expired');
}

export function progressBar(percent) {
  const fill = h('div');
  setProgress(fill, percent);
  return h('div', { class: 'progress', role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': percent }, fill);
}

// Through the CSSOM: the page's Content-Security-Policy refuses inline style attributes.
export function setProgress(fill, percent) {
  fill.style.width = `${Number(percent) || 0}%`;
  fill.parentElement?.setAttribute('aria-valuenow', String(percent));
}

export function when(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  const seconds = Math.round((Date.now() - date.getTime()) / 1000);
  if (seconds < 60) return `${Math.max(seconds, 0)} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  return date.toLocaleString();
}

export function duration(ms) {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export const shortId = (id) => (id ? `${id.slice(0, id.indexOf('_') + 9)}…` : '');
