/**
 * A memory browser's live runs in a process of its own, as another account may run it:
 * `liveRunsProbe.ts <cwd> <home>` prints each change of its runs (name, steps, problems) as a
 * JSON line until its input closes. `liveRuns.test.ts` runs it as `nobody` when the tests run as
 * root, so that a journal root wrote is one this process cannot read.
 */
import { loadConfig } from '../../src/config/load.js';
import { watchLiveRuns } from '../../src/hosts/ui/liveRuns.js';

const [cwd = '', home = ''] = process.argv.slice(2);
const live = watchLiveRuns(loadConfig({ cwd, home, env: {} }));
let last = '';
const report = (): void => {
  const line = JSON.stringify(live.runs().map((r) => ({ run: r.run, steps: r.steps.length, problems: r.problems })));
  if (line === last) return;
  last = line;
  process.stdout.write(`${line}\n`);
};
live.subscribe(report);
const timer = setInterval(report, 100);
process.stdin.resume();
process.stdin.on('end', () => {
  clearInterval(timer);
  live.close();
});
