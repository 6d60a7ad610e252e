// An agent stage's conversation on the run page: its instructions and prompt, then turn by turn the
// model's text, each tool call with its arguments and result, and the tokens spent. Events build it
// live (the run's stream is replayed from its start, so they alone tell it whole); the run's
// transcript from GET /v1/runs/{id} then puts in the full texts where events carried previews.
// Everything the model or a tool wrote is set as text: nothing here is parsed as markup.
import { h, replace } from './dom.js';

/** Characters of one text shown before the rest is folded away (a tool may answer a lot). */
const SHOWN_CHARS = 2000;

function longText(text, className) {
  const value = String(text ?? '');
  if (value.length <= SHOWN_CHARS) return h('div', { class: className }, value);
  const rest = value.slice(SHOWN_CHARS);
  return h('div', { class: className }, value.slice(0, SHOWN_CHARS), h('details', { class: 'more' }, h('summary', {}, `${rest.length} more characters`), rest));
}

const tokens = (usage) => (usage ? `${usage.prompt_tokens} + ${usage.completion_tokens} tokens` : '');
/** USD, to six places below a cent (a turn may cost $0.000150); '' when not costed. */
export const dollars = (usd) => (typeof usd === 'number' ? `$${usd >= 0.01 || usd === 0 ? usd.toFixed(4) : usd.toFixed(6)}` : '');

/** One tool call: the tool, the arguments as the model wrote them, and (once in) the result. */
function callView(callId, tool) {
  const args = h('code', { class: 'call-args' });
  const result = h('div', { class: 'call-result pending', dataset: { error: 'false' } }, h('span', { class: 'muted small' }, 'waiting for the result…'));
  const el = h('li', { class: 'call', dataset: { callId, tool } }, h('div', { class: 'call-head' }, h('span', { class: 'call-tool' }, tool), ' ', args), result);
  let fullResult = false;
  return {
    el,
    setArguments: (text) => (args.textContent = text),
    setResult(content, isError, { full }) {
      if (fullResult && !full) return;
      fullResult ||= full;
      result.className = `call-result${isError ? ' error' : ''}`;
      result.dataset.error = String(Boolean(isError));
      replace(result, h('span', { class: 'result-label small' }, isError ? 'error' : 'result'), longText(content, 'result-text'));
    },
  };
}

/** One model turn: its streamed (then recorded) text, its tool calls, its tokens, what it was told after. */
function turnView(n) {
  const text = h('div', { class: 'turn-text' });
  const usage = h('span', { class: 'muted small' });
  const label = h('strong', {}, `Turn ${n}`);
  const calls = h('ul', { class: 'calls' });
  const after = h('div', {});
  const el = h('li', { class: 'turn streaming', dataset: { turn: String(n) } }, h('div', { class: 'turn-head' }, label, ' ', usage), text, calls, after);
  const byId = new Map();
  return {
    n,
    el,
    /** True once the transcript gave this turn's text: streamed chunks of it are then old news. */
    fromTranscript: false,
    stream: (chunk) => text.append(document.createTextNode(chunk)),
    clearStream: () => text.replaceChildren(),
    recorded(toolCalls) {
      el.classList.remove('streaming');
      el.classList.toggle('answer', toolCalls === 0);
      if (toolCalls === 0) label.textContent = `Turn ${n} · answer`;
    },
    setText(content) {
      if (text.textContent !== (content ?? '')) replace(text, longText(content ?? '', 'turn-body'));
    },
    setUsage: (value, cost) => (usage.textContent = `${tokens(value)}${cost ? ` · ${dollars(cost)}` : ''}`),
    call(callId, tool) {
      let call = byId.get(callId);
      if (!call) {
        call = callView(callId, tool);
        byId.set(callId, call);
        calls.append(call.el);
      }
      return call;
    },
    setNudges: (texts) => replace(after, texts.map((told) => h('div', { class: 'nudge small' }, h('span', { class: 'result-label' }, 'told'), longText(told, 'nudge-text')))),
  };
}

function conversationView(stage) {
  const facts = h('p', { class: 'muted small' });
  const opening = h('div', { class: 'opening' });
  const turns = h('ol', { class: 'turns' });
  const el = h('section', { class: 'card conversation', dataset: { agent: stage } }, h('h2', {}, `Conversation · ${stage}`), facts, opening, turns);
  const byNumber = new Map();
  let announced = 0; // the last turn an event said was recorded: the next one is the one streaming

  const turn = (n) => {
    let view = byNumber.get(n);
    if (!view) {
      view = turnView(n);
      byNumber.set(n, view);
      const next = [...byNumber.values()].filter((other) => other.n > n).sort((a, b) => a.n - b.n)[0];
      turns.insertBefore(view.el, next ? next.el : null);
    }
    return view;
  };

  return {
    el,
    content(chunk) {
      const view = turn(announced + 1);
      if (!view.fromTranscript) view.stream(chunk);
    },
    reset() {
      const view = turn(announced + 1);
      if (!view.fromTranscript) view.clearStream();
    },
    turn({ turn: n, tool_calls: calls, usage }) {
      announced = Math.max(announced, n);
      turn(n).recorded(calls);
      facts.textContent = `${n} turn${n === 1 ? '' : 's'} · ${tokens(usage)} so far`;
    },
    toolCall: ({ turn: n, call_id: callId, tool, arguments: args }) => turn(n).call(callId, tool).setArguments(args),
    toolResult: ({ turn: n, call_id: callId, tool, is_error: isError, preview }) => turn(n).call(callId, tool).setResult(preview, isError, { full: false }),
    /** The stage's transcript as GET /v1/runs/{id} has it. */
    load(agent) {
      facts.textContent = `${agent.model} · ${agent.turns} turn${agent.turns === 1 ? '' : 's'} · ${tokens(agent.usage)}${agent.cost_usd ? ` · ${dollars(agent.cost_usd)}` : ''}`;
      const nudges = new Map();
      let last = 0;
      const intro = [];
      for (const message of agent.messages) {
        if (message.role === 'system') intro.push(h('div', { class: 'said' }, h('span', { class: 'result-label small' }, 'instructions'), longText(message.content, 'said-text')));
        else if (message.role === 'user' && last === 0) intro.push(h('div', { class: 'said' }, h('span', { class: 'result-label small' }, 'prompt'), longText(message.content, 'said-text')));
        else if (message.role === 'user') nudges.set(last, [...(nudges.get(last) ?? []), message.content]);
        else if (message.role === 'assistant') {
          last = message.turn;
          const view = turn(message.turn);
          view.fromTranscript = true;
          view.setText(message.content);
          view.setUsage(message.usage, message.cost_usd);
          view.recorded(message.tool_calls.length);
          for (const call of message.tool_calls) view.call(call.id, call.tool).setArguments(call.arguments);
        } else if (message.role === 'tool') turn(message.turn).call(message.call_id, message.tool).setResult(message.content, message.is_error, { full: true });
      }
      if (opening.childElementCount !== intro.length) replace(opening, intro);
      for (const [n, view] of byNumber) if (view.fromTranscript) view.setNudges(nudges.get(n) ?? []);
    },
  };
}

/**
 * The conversations of a run's agent stages. A stage is known to be an agent once the run's
 * transcript or an agent event says so; text it streamed before that went to the live text, and
 * `adopt` is called with it to move it here.
 */
export function conversations({ adopt }) {
  const root = h('div', { class: 'conversations' });
  const byStage = new Map();
  const of = (stage) => {
    let view = byStage.get(stage);
    if (!view) {
      view = conversationView(stage);
      byStage.set(stage, view);
      root.append(view.el);
      const early = adopt(stage);
      if (early) view.content(early);
    }
    return view;
  };
  return {
    root,
    /** Whether `stage` is an agent's (its streamed text is its model's, section named as the stage). */
    owns: (stage, section) => section === stage && byStage.has(stage),
    any: () => byStage.size > 0,
    fromRun: (run) => run.stages.forEach((stage) => stage.agent && of(stage.name).load(stage.agent)),
    content: (data) => of(data.stage).content(data.chunk),
    reset: (data) => of(data.stage).reset(),
    turn: (data) => of(data.stage).turn(data),
    toolCall: (data) => of(data.stage).toolCall(data),
    toolResult: (data) => of(data.stage).toolResult(data),
  };
}
