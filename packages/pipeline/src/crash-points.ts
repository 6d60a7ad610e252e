/**
 * Crash points: named places between two Redis round trips of a write path of the engine, where a
 * process may die (docs/OPERATIONS.md, "Reliability", lists them by path). The crash-point tests
 * (tests/system/crash-points.int.test.ts) start a process with one point armed
 * (`SWITCHYARD_CRASH_POINT`, read by the service's env.ts), run a pipeline through it, and check
 * that the rest of the stack recovers as if nothing had happened. The list of points is read from
 * the sources, `crashPoint('…')` calls, so a test fails when a point has no case.
 *
 * Unarmed, a point costs one comparison. Armed, the first process to reach it sends itself
 * SIGKILL: no `finally`, no exit handler, no buffered write runs, as when the host kills it.
 */

let armed: string | undefined;

/** Arms `name` in this process (a test's worker or orchestrator process); undefined disarms. */
export function armCrashPoint(name: string | undefined): void {
  armed = name === '' ? undefined : name;
}

/** Dies here, as SIGKILL would kill it, when this point is armed; nothing otherwise. */
export function crashPoint(name: string): void {
  if (armed === name) process.kill(process.pid, 'SIGKILL');
}
