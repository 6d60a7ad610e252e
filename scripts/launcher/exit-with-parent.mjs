/**
 * Preloaded into every child the launcher starts (`node --import <this>`, with tsx or compiled);
 * plain JavaScript, so that a compiled child needs no TypeScript loader for it: when the
 * launcher dies without stopping its children (SIGKILL, a crash), the child is re-parented, sees
 * it here within a second and sends itself one SIGTERM, which runs its own clean shutdown.
 * Nothing is left running behind a launcher that is gone.
 */
import { clearInterval, setInterval } from 'node:timers';

const launcher = process.ppid;
const watch = setInterval(() => {
  if (process.ppid === launcher) return;
  clearInterval(watch);
  process.kill(process.pid, 'SIGTERM');
}, 1000);
watch.unref();
