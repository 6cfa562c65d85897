import type { ChildProcess } from 'node:child_process';

/**
 * Signals a child and waits for its exit. A test that only signals races its own cleanup: a
 * server still closing writes into the data directory the test's afterAll is removing (CI,
 * 2026-11-29: ENOTEMPTY on rmdir of a killed server's data directory).
 */
export const stopChild = (child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
