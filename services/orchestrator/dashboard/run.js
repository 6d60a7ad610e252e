// A run's page: its stages as a timeline, the text arriving live from its events, its agents'
// conversations, its progress, a cancel button, what it waits for (with the Inbox's controls),
// and the finished story.
import { conversations, dollars } from './agent.js';
import { api, ApiError } from './api.js';
import { badge, duration, h, progressBar, replace, setProgress, shortId, TERMINAL, when } from './dom.js';
import { syncCards, oneAtATime } from './inbox.js';
import { waitCard } from './waits.js';

function stageRow(stage) {
  const started = stage.started_at ? Date.parse(stage.started_at) : null;
  const finished = stage.finished_at ? Date.parse(stage.finished_at) : null;
  const active = stage.status === 'running' || stage.status === 'retrying';
  // A stage stopped by its run's end has no finish of its own: no duration is claimed for it.
  const took = started === null || (finished === null && !active) ? '' : duration((finished ?? Date.now()) - started);
  return h(
    'li',
    { class: `stage ${stage.status}`, dataset: { stage: stage.name, status: stage.status } },
    h('span', { class: 'dot', 'aria-hidden': 'true' }),
    h('div', { class: 'stage-main' }, h('strong', {}, stage.name), ' ', badge(stage.status), stage.iterations ? h('span', { class: 'muted small' }, ` ${stage.iterations} loops`) : ''),
    h('div', { class: 'stage-facts muted small' }, `attempts ${stage.attempts}`, took ? ` · ${took}${active ? ' so far' : ''}` : '', stage.agent ? ` · ${stage.agent.turns} turn${stage.agent.turns === 1 ? '' : 's'}` : ''),
    stage.error ? h('div', { class: 'stage-error small' }, `${stage.error.code}: ${stage.error.message}`) : '',
    // A child pipeline step's run, and the fallback that stood in for a failed step.
    stage.child_run ? h('div', { class: 'small' }, 'child run ', h('a', { href: `#/runs/${stage.child_run}`, class: 'child-run' }, shortId(stage.child_run))) : '',
    stage.fallback ? h('div', { class: 'muted small' }, `fallback ${stage.fallback} stood in`) : '',
  );
}

function paragraphs(text) {
  return String(text)
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter(Boolean)
    .map((block) => (/^#{1,6}\s/.test(block) ? h('h3', {}, block.replace(/^#{1,6}\s+/, '')) : h('p', {}, block)));
}

function storyOf(result) {
  if (result && typeof result === 'object' && typeof result.title === 'string' && typeof result.content === 'string') {
    return h(
      'article',
      { class: 'story card' },
      h('h2', {}, result.title),
      typeof result.word_count === 'number' ? h('p', { class: 'muted small' }, `${result.word_count} words`) : '',
      paragraphs(result.content),
    );
  }
  return h('section', { class: 'story card' }, h('h2', {}, 'Result'), h('pre', { class: 'json' }, JSON.stringify(result, null, 2)));
}

/** The live text: one panel per section, in the order they first spoke. */
function liveText() {
  const root = h('div', { class: 'sections' });
  const panels = new Map();
  const panel = (stage, section) => {
    const key = `${stage}/${section}`;
    let text = panels.get(key);
    if (!text) {
      text = h('div', { class: 'section-text' });
      panels.set(key, text);
      root.append(h('section', { class: 'section', dataset: { section: key } }, h('h4', {}, section === stage ? stage : `${stage} · ${section}`), text));
    }
    return text;
  };
  return {
    root,
    content: ({ stage, section, chunk }) => {
      const text = panel(stage, section);
      // Follow the end of the text unless the reader has scrolled up.
      const following = text.scrollTop + text.clientHeight >= text.scrollHeight - 24;
      text.append(document.createTextNode(chunk));
      if (following) text.scrollTop = text.scrollHeight;
    },
    reset: ({ stage, section }) => panel(stage, section).replaceChildren(),
    empty: () => panels.size === 0,
    /** Removes a section's panel, answering the text it had (an agent's, known as one late). */
    take(stage, section) {
      const key = `${stage}/${section}`;
      const text = panels.get(key);
      if (!text) return '';
      panels.delete(key);
      text.parentElement?.remove();
      return text.textContent;
    },
  };
}


/** Why a queued run waits, in words (its view's `flow.waiting.reason`). */
const WAIT_REASONS = { priority: 'behind work of a higher priority', fair_share: "behind other callers' turns in its class", concurrency_key: 'behind its concurrency key', starting: 'next to start' };

/** A run's flow control on one line: its priority, its fair-share key, its concurrency key, and why it waits. */
function flowText(flow) {
  const parts = [`priority ${flow.priority}`, `key ${flow.key}${flow.weight ? ` (weight ${flow.weight})` : ''}`];
  if (flow.concurrency) parts.push(`concurrency ${flow.concurrency.value} (limit ${flow.concurrency.limit})`);
  const waiting = flow.waiting;
  if (waiting) parts.push(`waits ${WAIT_REASONS[waiting.reason] ?? waiting.reason}${waiting.ahead !== undefined ? `, ${waiting.ahead} ahead` : ''}`);
  return parts.join(' · ');
}

export async function runView(ctx, runId) {
  let run = await api(`/v1/runs/${runId}`);
  const title = h('h1', {});
  const status = h('span', {});
  const facts = h('p', { class: 'muted small' });
  const flowFacts = h('p', { class: 'muted small flow-facts' });
  const bar = progressBar(run.progress);
  const percent = h('span', { class: 'small' });
  const stages = h('ol', { class: 'timeline' });
  const live = liveText();
  const liveCard = h('section', { class: 'card live' }, h('h2', {}, 'Live text'), live.root);
  const agents = conversations({ adopt: (stage) => live.take(stage, stage) });
  // A run of agents alone streams no other text: its empty panel would only take room.
  const showLive = () => (liveCard.hidden = agents.any() && live.empty());
  const notices = h('ul', { class: 'notices small' });
  const story = h('div', {});
  const message = h('p', { class: 'notice error', role: 'alert', hidden: true });
  const cancel = h('button', { type: 'button', class: 'danger' }, 'Cancel run');
  const waitList = h('div', { class: 'waits' });
  const waitsCard = h('section', { class: 'card waiting', hidden: true }, h('h2', {}, 'Waiting for'), waitList);
  // Asked when the run says it waits (or stops waiting): its `waiting` events and its status.
  const loadWaitsOnce = async () => {
    // A run that ended waits for nothing: the card goes, answered or not.
    if (TERMINAL.includes(run.status)) return void (waitsCard.hidden = true);
    const { items } = await api(`/v1/inbox?run_id=${runId}&limit=50`);
    syncCards(waitList, items, (item) => waitCard(item, { onAnswered: refresh }));
    waitsCard.hidden = waitList.childElementCount === 0;
  };
  // One load at a time: two at once would each make a card for the same wait, the second
  // replacing the first while someone types a note into it.
  const loadWaits = oneAtATime(loadWaitsOnce);

  const show = (next) => {
    run = next;
    const topic = run.request && typeof run.request === 'object' ? run.request.topic ?? run.request.project?.name : undefined;
    title.textContent = topic ?? run.run_id;
    replace(status, badge(run.status));
    replace(facts, `${run.pipeline ? `${run.pipeline.name} v${run.pipeline.version}` : run.kind} · ${run.run_id} · started ${when(run.created_at)}`, run.batch_id ? [' · batch ', h('a', { href: `#/batches/${run.batch_id}` }, shortId(run.batch_id))] : '', run.parent ? [' · child of ', h('a', { href: `#/runs/${run.parent.run_id}`, class: 'parent-run' }, shortId(run.parent.run_id)), ` (${run.parent.stage})`] : '', run.cost_usd ? h('span', { class: 'run-cost' }, ` · ${dollars(run.cost_usd)}`) : '');
    replace(flowFacts, run.flow ? flowText(run.flow) : '');
    flowFacts.hidden = !run.flow;
    // A queued run has no events until it starts: why it waits is looked at again meanwhile.
    if (run.status === 'queued' && flowFacts.isConnected) setTimeout(() => flowFacts.isConnected && refresh(), 2000);
    setProgress(bar.firstElementChild, run.progress);
    percent.textContent = `${run.progress}%`;
    replace(stages, run.stages.map(stageRow));
    agents.fromRun(run);
    showLive();
    cancel.hidden = TERMINAL.includes(run.status);
    if (run.error) {
      replace(message, `${run.error.code}: ${run.error.message}`);
      message.hidden = false;
    }
    if (run.status === 'completed' && run.result && !story.firstChild) replace(story, storyOf(run.result));
    const waiting = run.status === 'waiting';
    if (waiting || !waitsCard.hidden) void loadWaits().catch(() => undefined);
  };

  let pending;
  const refresh = () => {
    pending ??= setTimeout(async () => {
      pending = undefined;
      show(await api(`/v1/runs/${runId}`).catch(() => run));
    }, 150);
  };

  cancel.addEventListener('click', async () => {
    cancel.disabled = true;
    try {
      show(await api(`/v1/runs/${runId}`, { method: 'DELETE' }));
    } catch (failure) {
      message.textContent = failure instanceof ApiError && failure.code === 'run_finished' ? 'The run had already ended.' : failure.message;
      message.hidden = false;
      refresh();
    } finally {
      cancel.disabled = false;
    }
  });

  replace(
    ctx.root,
    h('p', {}, h('a', { href: '#/' }, '← Runs')),
    h('section', { class: 'card run-head' }, h('div', { class: 'row head' }, title, status, h('span', { class: 'grow' }), cancel), facts, flowFacts, h('div', { class: 'row' }, bar, percent), message),
    waitsCard,
    h('div', { class: 'columns' }, h('section', { class: 'card' }, h('h2', {}, 'Stages'), stages, notices), h('div', { class: 'right' }, liveCard, agents.root)),
    story,
  );
  show(run);

  const events = new EventSource(run.events_url);
  // The run's `error` events share their name with EventSource's own, which carry no data.
  const on = (name, handle) => events.addEventListener(name, (event) => event.data && handle(JSON.parse(event.data)));
  on('stage', (data) => {
    if (data.progress) {
      setProgress(bar.firstElementChild, data.progress.percent);
      percent.textContent = `${data.progress.percent}%`;
    }
    refresh();
  });
  on('content', (data) => (agents.owns(data.stage, data.section) ? agents.content(data) : (live.content(data), showLive())));
  on('reset', (data) => (agents.owns(data.stage, data.section) ? agents.reset(data) : live.reset(data)));
  // Each recorded turn and result is asked for whole (events carry the start of a tool's text).
  on('turn', (data) => (agents.turn(data), showLive(), refresh()));
  on('tool_call', agents.toolCall);
  on('waiting', () => (loadWaits().catch(() => undefined), refresh()));
  on('tool_result', (data) => (agents.toolResult(data), refresh()));
  on('error', (data) => notices.append(h('li', {}, `${data.stage ?? 'run'}: ${data.code}: ${data.message}${data.will_retry ? ' (retrying)' : ''}`)));
  on('done', (data) => {
    events.close();
    if (data.result) replace(story, storyOf(data.result));
    refresh();
  });
  // Timings of running stages move on by themselves.
  const ticker = setInterval(() => TERMINAL.includes(run.status) || replace(stages, run.stages.map(stageRow)), 1000);
  ctx.onCleanup(() => {
    events.close();
    clearInterval(ticker);
    clearTimeout(pending);
  });
}
