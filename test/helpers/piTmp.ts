/**
 * The temporary directory a test's pi process gets. pi compiles its extensions with jiti, which
 * keeps the compiled files in `<tmpdir>/jiti`; when another account created that directory, the
 * cache is not writable, jiti silently compiles every extension file on every start, and a pi
 * under load took over 30 s to say anything. A directory of this account's own, inside the test
 * run's temp dir (test/helpers/tempRoot.ts), keeps the cache for the run.
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const piTmpEnv = (): { readonly TMPDIR: string } => {
  const dir = join(tmpdir(), `am-pi-tmp-${process.getuid?.() ?? 'user'}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return { TMPDIR: dir };
};
