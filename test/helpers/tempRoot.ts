/**
 * vitest's global setup: one temp dir per test run. The tests make thousands of temp dirs
 * (projects, homes, data dirs, pi agent dirs) and not every one is removed, and a run that is
 * stopped removes none, so `npm test` filled the user's /tmp run after run. Every worker and
 * child process of the run inherits TMPDIR pointing into one private directory, removed when
 * the run ends. The unpacked test browser is kept outside it (test/helpers/browser.ts), so it
 * is unpacked once per user, not once per run.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const OUTER_TMPDIR = 'AGENT_MEMORY_TEST_OUTER_TMPDIR';

let root: string | undefined;

export const setup = (): void => {
  const outer = process.env[OUTER_TMPDIR] ?? tmpdir();
  root = mkdtempSync(join(outer, 'agent-memory-tests-'));
  // Others may pass through, not list it: tests run as root drop a CLI to `nobody` inside their
  // own temp tree (test/hosts/cli/diagnostics.test.ts), whose directories are 0700 themselves.
  chmodSync(root, 0o711);
  process.env[OUTER_TMPDIR] = outer;
  process.env['TMPDIR'] = root;
};

export const teardown = (): void => {
  if (root === undefined) return;
  try {
    rmSync(root, { recursive: true, force: true });
  } catch (error) {
    // A mount left by a failed disk-fault test (EBUSY) must not hide the run's own result.
    console.error(`the test run's temp dir ${root} was not removed (${error instanceof Error ? error.message : String(error)}); remove it by hand`);
  }
};
