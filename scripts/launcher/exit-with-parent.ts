/**
 * Preloaded into every child the launcher starts (`node --import tsx --import <this>`): when the
 * launcher dies without stopping its children (SIGKILL, a crash), the child is re-parented, sees
 * it here within a second and sends itself one SIGTERM, which runs its own clean shutdown.
 * Nothing is left running behind a launcher that is gone.
 */
const launcher = process.ppid;
const watch = setInterval(() => {
  if (process.ppid === launcher) return;
  clearInterval(watch);
  process.kill(process.pid, 'SIGTERM');
}, 1000);
watch.unref();
