/**
 * The extension a test's real pi loads: this checkout's `src/hosts/pi/extension.ts`, bundled
 * once per test run. pi loads an extension with jiti, which resolved and wrapped the source's
 * ~250 modules one by one on every start: 4.5-5 s of CPU a pi process where pi alone takes
 * 1.2 s (a bundle: 1.5 s), and the suite starts pi over a hundred times. The bundle is built
 * as the shipped one is (dependencies inlined, pi's own packages and typebox left to pi, the
 * lazily imported runtime in chunks of its own) from the same source, with `import.meta.url`
 * pinned to the source entry so every path the code finds from its own place (the embedded
 * server's command, the word lists, package files) is the one it finds from source.
 * `PI_EXTENSION_SOURCE` (or a run without this global setup) loads the source instead; one
 * test keeps doing so (`test/hosts/pi/cliPrint.test.ts`), so pi's loading of the TypeScript
 * itself stays checked.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const repo = path.resolve(import.meta.dirname, '..', '..');
export const piExtensionSource = path.join(repo, 'src/hosts/pi/extension.ts');
const ENV = 'AGENT_MEMORY_TEST_PI_EXTENSION';

/** The extension path to hand pi's `-e`: the run's bundle when there is one, else the source. */
export const piExtension = (): string => {
  const bundled = process.env[ENV];
  return bundled !== undefined && bundled !== '' && process.env['PI_EXTENSION_SOURCE'] === undefined && existsSync(bundled) ? bundled : piExtensionSource;
};

/** vitest's global setup: bundles the extension into a folder named by its content (kept between runs, so pi's jiti cache of it holds). */
export const setup = async (): Promise<void> => {
  const sourceUrl = pathToFileURL(piExtensionSource).href;
  const result = await build({
    entryPoints: [piExtensionSource],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    // Some bundled CommonJS dependencies call require().
    banner: { js: `import { createRequire as __amCreateRequire } from 'node:module'; const require = __amCreateRequire(${JSON.stringify(sourceUrl)});` },
    define: { 'import.meta.url': JSON.stringify(sourceUrl) },
    external: ['typebox', '@mariozechner/*', '@earendil-works/*'],
    splitting: true,
    outdir: 'out',
    entryNames: 'extension',
    outExtension: { '.js': '.mjs' },
    write: false,
  });
  const hash = createHash('sha256');
  for (const file of result.outputFiles) hash.update(file.path).update(file.contents);
  const root = path.join(repo, 'node_modules', '.cache', 'agent-memory-tests');
  const dir = path.join(root, `pi-extension-${hash.digest('hex').slice(0, 16)}`);
  if (!existsSync(dir)) {
    mkdirSync(root, { recursive: true });
    // Written aside, then renamed: two runs at once both finish with one whole folder.
    const scratch = mkdtempSync(path.join(root, 'building-'));
    for (const file of result.outputFiles) writeFileSync(path.join(scratch, path.basename(file.path)), file.contents);
    try {
      renameSync(scratch, dir);
    } catch {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  // Bundles of earlier sources go after an hour (a run going on at the same time made its own within it).
  for (const name of readdirSync(root)) {
    const other = path.join(root, name);
    if (other === dir || !/^(pi-extension|building)-/.test(name)) continue;
    try {
      if (Date.now() - statSync(other).mtimeMs > 3_600_000) rmSync(other, { recursive: true, force: true });
    } catch {
      // Removed by another run meanwhile.
    }
  }
  process.env[ENV] = path.join(dir, 'extension.mjs');
};
