/**
 * Defects a test report lists, as the s5 template asks for them: `- [severity] description`
 * under "Failures and Defects". High and critical ones send the pipeline back to s4.
 */
import type { StageDefect } from '@switchyard/contracts';

const DEFECT_LINE = /^\s*[-*]\s*\[(low|medium|high|critical)\]\s*(.+?)\s*$/gim;

export function listedDefects(report: string): StageDefect[] {
  return [...report.matchAll(DEFECT_LINE)].map((m) => ({ severity: (m[1] ?? 'low').toLowerCase() as StageDefect['severity'], description: m[2] ?? '' }));
}

export function blockingDefects(report: string): StageDefect[] {
  return listedDefects(report).filter((d) => d.severity === 'high' || d.severity === 'critical');
}
