/**
 * CPU profiles of the agent bench's process (the workers), taken with the inspector around one
 * batch, written as `.cpuprofile` files (open them in Chrome's DevTools) and summed up per tool
 * call: self time by area (our packages, BullMQ, ioredis, the model client, node), and the time
 * spent under the calls that matter to an agent's turn (transcript reads, run events, flows,
 * the model client), a frame under another of them counted once. Time under a call counts only
 * what runs on its stack: what an await resumes is under the call again, but what a stream or a
 * socket does in callbacks of its own (LangChain's chunk parsing, ioredis' replies) is not, and
 * is seen in the areas instead.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Runs `work` under the sampling profiler; writes the profile to `file`. */
export async function profiled<T>(file: string, work: () => Promise<T>): Promise<{ value: T; profile: CpuProfile }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    const value = await work();
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
    writeFileSync(file, JSON.stringify(profile));
    return { value, profile };
  } finally {
    session.disconnect();
  }
}

/** Where a frame's code lives, coarsely. */
function areaOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (url === '') return functionName.startsWith('(') ? functionName : 'node (native)';
  if (url.startsWith('node:')) return 'node (internals)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (modules?.[1]) {
    if (modules[1].startsWith('@langchain/') || modules[1] === 'openai' || modules[1] === 'langsmith') return 'model client (LangChain, openai)';
    return modules[1];
  }
  const ours = /\/(packages|services)\/([^/]+)\/src\/(.*)$/.exec(url);
  if (!ours) return path.basename(url);
  if (ours[3]?.startsWith('agent/') || ours[3]?.includes('agent-')) return `${ours[2]} (agent)`;
  return String(ours[2]);
}

/** Calls whose time (theirs and their callees') an agent's turn is reported by. */
const UNDER = [
  { label: 'transcript reads (AgentTranscripts.read/turn/result)', url: 'store/agent-transcript', functions: ['read', 'turn', 'result'] },
  { label: 'transcript writes (recordTurn/recordResult/open)', url: 'store/agent-transcript', functions: ['recordTurn', 'recordResult', 'open'] },
  { label: 'run events (RunStore.appendEvent)', url: 'pipeline/src/store/', functions: ['appendEvent'] },
  { label: 'job and flow adds (StepQueues.#sendAll, FlowProducer)', url: 'engine/step-jobs', functions: ['#sendAll'] },
  { label: 'model client, its synchronous part (ModelClient.turn, streamAttempt)', url: 'models/src/', functions: ['turn', 'streamAttempt'] },
  { label: 'checking calls and the events that tell a turn (checkedCalls, turnEvents)', url: 'agent/agent-turn', functions: ['checkedCalls', 'turnEvents'] },
] as const;

const matchOf = (frame: ProfileNode['callFrame']) => UNDER.find((u) => frame.url.includes(u.url) && (u.functions as readonly string[]).includes(frame.functionName))?.label;

/**
 * The profile per tool call (µs): self time by area, the heaviest functions, and time under each
 * of {@link UNDER}; `(idle)` is left out of the total.
 */
export function summarizeProfile(profile: CpuProfile, toolCalls: number) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0)));
  const perCall = (us: number) => Math.round((us / toolCalls) * 10) / 10;
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  let busyUs = 0;
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    if (node.callFrame.functionName === '(idle)' || us === 0) continue;
    busyUs += us;
    const area = areaOf(node.callFrame);
    areas.set(area, (areas.get(area) ?? 0) + us);
    const name = `${node.callFrame.functionName || '(anonymous)'} ${path.basename(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
  }
  const under = new Map<string, number>();
  // Depth first from the root, carrying the label of the nearest matching caller.
  const root = profile.nodes[0];
  const stack: { id: number; label: string | undefined }[] = root ? [{ id: root.id, label: undefined }] : [];
  while (stack.length > 0) {
    const { id, label: inherited } = stack.pop() as { id: number; label: string | undefined };
    const node = byId.get(id);
    if (!node) continue;
    const label = inherited ?? matchOf(node.callFrame);
    if (label) under.set(label, (under.get(label) ?? 0) + (selfUs.get(id) ?? 0));
    for (const child of node.children ?? []) stack.push({ id: child, label });
  }
  const ranked = (map: Map<string, number>, top: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, us_per_call: perCall(us), share: Math.round((us / busyUs) * 1000) / 1000 }));
  return {
    busy_us_per_call: perCall(busyUs),
    by_area: ranked(areas, 14),
    top_functions: ranked(functions, 15),
    under: Object.fromEntries(UNDER.map((u) => [u.label, perCall(under.get(u.label) ?? 0)])),
  };
}
