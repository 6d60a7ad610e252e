/**
 * One run's progress as a line of text: the bar, the percentage, status, stage, words so far, label.
 */

export interface RunLine {
  /** What the run is to a person: its topic, or its pipeline and id. */
  label: string;
  status: string;
  progress: number;
  /** The stage running now, if any. */
  stage?: string | undefined;
  /** Words written so far, once there are some. */
  words?: number | undefined;
  /** The text arriving now, drawn under the bar on a terminal (never in a log). */
  detail?: string | undefined;
}

const BAR_WIDTH = 24;

/** One line: `[██████░░░░]  60% running   write.climax        412 words  a topic…`. */
export function progressLine(run: RunLine, labelWidth = 40): string {
  const percent = Math.max(0, Math.min(100, Math.round(run.progress)));
  const filled = Math.round((percent / 100) * BAR_WIDTH);
  const bar = `${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}`;
  const label = run.label.length > labelWidth ? `${run.label.slice(0, labelWidth - 1)}…` : run.label;
  const words = run.words ? `${run.words} words` : '';
  return `[${bar}] ${String(percent).padStart(3)}% ${run.status.padEnd(9)} ${(run.stage ?? '').padEnd(18)} ${words.padStart(11)}  ${label}`;
}
