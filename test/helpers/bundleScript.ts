/**
 * Bundles a TypeScript entry and what it imports into ESM for Node 20 with esbuild (a dev
 * dependency): a child process then starts in a fraction of tsx's time, and the script runs
 * from wherever it is written (a directory another user can read, say).
 */
import { basename, dirname, extname } from 'node:path';
import { build, type BuildOptions } from 'esbuild';

// Some bundled CommonJS dependencies call require().
const requireBanner = "import { createRequire as __amCreateRequire } from 'node:module'; const require = __amCreateRequire(import.meta.url);";

/**
 * Bundles `entry` into `outfile`; returns `outfile`. With `external` (packages left out, as the
 * package build leaves pi's), lazily imported code goes to chunks beside `outfile`, so an
 * external is needed only by the code path that imports it.
 */
export const bundleScript = async (entry: string, outfile: string, o: { readonly external?: readonly string[] } = {}): Promise<string> => {
  const common: BuildOptions = { entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning', banner: { js: requireBanner } };
  if (o.external === undefined) {
    await build({ ...common, outfile });
    return outfile;
  }
  await build({
    ...common,
    external: [...o.external],
    splitting: true,
    outdir: dirname(outfile),
    entryNames: basename(outfile, extname(outfile)),
    outExtension: { '.js': extname(outfile) },
  });
  return outfile;
};
