/** `agent-memory flush`: delivers this directory's queued retain jobs now, with a progress bar. */
import { barStream } from '../redactedOutput.js';
import { SingleBar, Presets } from 'cli-progress';
import { redact } from '../../../config/redact.js';
import type { Command } from '../commands.js';
import { withRuntime } from '../runtimeCommand.js';
import { parseProjectArgs } from '../projectArgs.js';
import { setAsideNotice, setAsideQueueFiles } from '../../../adapters/queue/queueOwner.js';
import { commandUsage } from '../helpText.js';
import { capitalized, probeServerDown, SERVER_PROBE_MS } from '../../../tools/serverDown.js';
import { cliCommand, cliServeCommand, cliTakeBack } from '../selfCommand.js';

export const flushCommand: Command = {
  usage: commandUsage(
    'flush',
    'usage: agent-memory flush [--cwd DIR] [--timeout-ms N] [--trust-queue]\n\n  --cwd DIR       deliver the queue of the project in DIR (default: this directory)\n  --timeout-ms N  stop waiting after N ms (default 60000); undelivered jobs stay queued\n  --trust-queue   take the queue file as it is as yours (a queue memory set aside as not written by\n                  you, moved back after you checked its jobs), then deliver it',
  ),
  run: async (argv) => {
    const args = parseProjectArgs(argv, 'flush', flushCommand.usage, { 'timeout-ms': { type: 'string' }, 'trust-queue': { type: 'boolean' } });
    if (typeof args === 'string') {
      console.error(args);
      return 2;
    }
    const given = args.values['timeout-ms'];
    const timeoutMs = typeof given === 'string' ? Number(given) : 60_000;
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
      console.error('agent-memory flush: --timeout-ms must be a positive whole number of milliseconds');
      return 2;
    }
    const trustQueue = args.values['trust-queue'] === true;
    return withRuntime(args.cwd, 'flush', async (runtime) => {
      // A queue file memory set aside (not written by this user) holds jobs this flush did not
      // deliver: "Nothing queued." alone read as if nothing was waiting.
      const setAside = (): number => {
        const files = setAsideQueueFiles(runtime.loaded.config.queuePath);
        for (const file of files) console.error(redact(`agent-memory flush: not delivered: ${setAsideNotice(file, cliTakeBack(runtime.loaded.cwd))}`));
        return files.length;
      };
      const queue = runtime.queue;
      if (queue === undefined) {
        console.error(redact(`agent-memory flush: the retain queue could not be opened: ${runtime.status().problems.join('; ') || 'unknown reason'}`));
        return 1;
      }
      // The queue starts delivering what it finds as it opens: what it did since counts as this flush's work.
      const done = (): { delivered: number; deadLettered: number } => queue.status().sinceOpen ?? { delivered: 0, deadLettered: 0 };
      const handled = (): number => done().delivered + done().deadLettered;
      const total = queue.status().depth + handled();
      if (total === 0) {
        console.log('Nothing queued.');
        return setAside() > 0 ? 1 : 0;
      }
      const bar = new SingleBar({ format: 'delivering [{bar}] {value}/{total} jobs | {state}', hideCursor: true, noTTYOutput: true, notTTYSchedule: 1000, stream: barStream(process.stderr) }, Presets.shades_classic);
      bar.start(total, handled(), { state: queue.status().state });
      const stop = queue.subscribe((s) => bar.update(Math.min(total, handled()), { state: s.state }));
      // The user asked for delivery now: a pending backoff does not make them wait.
      const report = await queue.flush({ deadline: Date.now() + timeoutMs, force: true });
      stop();
      const after = queue.status();
      bar.update(Math.min(total, handled()), { state: after.state });
      bar.stop();
      console.log(`delivered ${done().delivered}, dead-lettered ${done().deadLettered}, still queued ${after.depth}`);
      if (after.depth > 0) {
        const why = report.stoppedBecause ?? after.pausedReason ?? after.lastError ?? after.lastSkip ?? 'the server did not take them in time';
        // No answer: what starts it (the embedded server here) or to check it, as the doctor says; else the doctor finds out.
        const down = await probeServerDown(runtime.server, cliServeCommand(), SERVER_PROBE_MS);
        const next = down === undefined ? `They are safe on disk; run ${cliCommand(['doctor', '--cwd', args.cwd])}, then flush again.` : `They are safe on disk.\n${capitalized(down)}; then flush again.`;
        console.log(redact(`Still queued because: ${why}. ${next}`));
        setAside();
        return 1;
      }
      return setAside() > 0 ? 1 : 0;
    }, trustQueue ? { trustQueue } : {});
  },
};
