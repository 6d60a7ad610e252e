/**
 * What a client following a run's events would show, checked against the run's result: for each
 * section, the `content` chunks after its last `reset` must be the section's text exactly. A chunk
 * sent twice (a replayed write) or a restart without `reset` shows up as doubled text.
 */
import type { EventSourceMessage } from 'eventsource-parser/stream';

export interface TextCheck {
  sections: number;
  resets: number;
  /** Sections whose streamed text is not the section's final content. */
  mismatched: string[];
}

interface ContentData {
  stage: string;
  section?: string;
  chunk?: string;
}

/** The text each stage streamed, as a client keeping only what came after each reset would hold it. */
export function streamedTexts(events: readonly EventSourceMessage[]): { texts: Map<string, string>; resets: number } {
  const texts = new Map<string, string>();
  let resets = 0;
  for (const event of events) {
    if (event.event !== 'content' && event.event !== 'reset') continue;
    const data = JSON.parse(event.data) as ContentData;
    if (event.event === 'reset') {
      resets += 1;
      texts.set(data.stage, '');
    } else {
      texts.set(data.stage, (texts.get(data.stage) ?? '') + (data.chunk ?? ''));
    }
  }
  return { texts, resets };
}

/** Compares a story run's streamed sections with the sections of its result. */
export function checkStoryText(events: readonly EventSourceMessage[], result: { sections: { name: string; content: string }[] }): TextCheck {
  const { texts, resets } = streamedTexts(events);
  const mismatched = result.sections.filter((s) => (texts.get(`write.${s.name}`) ?? '').trim() !== s.content.trim()).map((s) => s.name);
  return { sections: result.sections.length, resets, mismatched };
}
