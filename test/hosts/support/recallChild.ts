/**
 * One short-lived host process for the shared-breaker test: opens a memory runtime in the
 * project given in argv, starts a session, asks for recall `argv[3]` times, and prints the
 * breaker state it started with and ended with (as JSON on the last line).
 */
import { createMemoryRuntime } from '../../../src/hosts/memoryRuntime.js';

const cwd = process.argv[2] ?? '.';
const recalls = Number(process.argv[3] ?? '1');
const runtime = await createMemoryRuntime({ cwd, shutdownFlushMs: 100 });
const atStart = runtime.server.breaker();
await runtime.send({ type: 'session.started', sessionId: `breaker-${process.pid}`, reason: 'startup' });
const outcomes: string[] = [];
for (let i = 0; i < recalls; i += 1) {
  const result = await runtime.recallFor([{ role: 'user', content: [{ type: 'text', text: `what was decided about deploys (${i})?` }], timestamp: i + 1 }]);
  outcomes.push(`${String(result.outcome)}${result.reason === undefined ? '' : `: ${result.reason}`}`);
}
const atEnd = runtime.server.breaker();
await runtime.close();
process.stdout.write(`${JSON.stringify({ atStart, atEnd, outcomes })}\n`);
