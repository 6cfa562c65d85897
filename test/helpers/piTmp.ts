/**
 * The temporary directory a test's pi process gets. pi compiles its extensions with jiti, which
 * keeps the compiled files in `<tmpdir>/jiti`; when another account created that directory, the
 * cache is not writable, jiti silently compiles every extension file on every start, and a pi
 * under load took over 30 s to say anything. A directory of this account's own keeps the cache.
 * It lives beside the run's temp dir (test/helpers/tempRoot.ts), not inside it, so the next run
 * starts with the files compiled (as the test browser is unpacked once per user).
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OUTER_TMPDIR } from './tempRoot.js';

export const piTmpEnv = (): { readonly TMPDIR: string } => {
  const dir = join(process.env[OUTER_TMPDIR] ?? tmpdir(), `agent-memory-pi-tmp-${process.getuid?.() ?? 'user'}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return { TMPDIR: dir };
};
