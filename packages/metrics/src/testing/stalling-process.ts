/**
 * A process for the watchdog's test: starts the watchdog (stall bound from argv[2]), says
 * "ready", then either blocks its event loop for good (`block`) or keeps it turning (`idle`).
 */
import { startEventLoopWatchdog } from '../event-loop-watchdog.js';

const stallMs = Number(process.argv[2]);
const mode = process.argv[3];
startEventLoopWatchdog({ stallMs, name: 'stalling-process' });
process.stdout.write('ready\n');
if (mode === 'block') {
  setTimeout(() => {
    for (;;) {
      // Blocked, as a runaway synchronous loop would be.
    }
  }, 50);
} else {
  setTimeout(() => process.exit(0), stallMs * 4);
}
