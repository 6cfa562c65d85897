import { builtinModules } from 'node:module';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import esbuild from 'rollup-plugin-esbuild';
import commonjs from '@rollup/plugin-commonjs';
import json from '@rollup/plugin-json';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { dts } from 'rollup-plugin-dts';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const deps = [
  ...Object.keys(pkg.dependencies ?? {}),
  ...Object.keys(pkg.peerDependencies ?? {}),
  ...builtinModules,
];
// Dependencies stay external: the package is a library, and pi shares its own copies.
const external = (id) => id.startsWith('node:') || deps.some((d) => id === d || id.startsWith(`${d}/`));
// Source maps are for a developer's own build (SOURCE_MAPS=true npm run build); the published
// package ships none (they were two thirds of its unpacked size).
const sourcemap = process.env.SOURCE_MAPS === 'true';
const js = () => esbuild({ target: 'node20', sourceMap: sourcemap });
const jsOnly = process.env.JS_ONLY === 'true';

// Chunk names carry a content hash, so a rebuild after a change writes new files beside the old
// ones, and `npm pack` would ship both. The old ones are removed only after the new ones are
// written: a process starting on the new entry never finds a chunk missing.
const pruneStaleChunks = (subdir) => ({
  name: 'prune-stale-chunks',
  writeBundle(options, bundle) {
    const dir = join(options.dir, subdir);
    const kept = (name) => (subdir === '' ? name : `${subdir}/${name}`) in bundle;
    for (const name of readdirSync(dir)) {
      const chunk = name.endsWith('.mjs.map') ? name.slice(0, -'.map'.length) : name;
      if (chunk.endsWith('.mjs') && !kept(chunk)) rmSync(join(dir, name));
    }
  },
});

const library = {
  input: 'src/index.ts',
  external,
  plugins: [js()],
  output: [
    { file: 'dist/index.mjs', format: 'es', sourcemap },
    { file: 'dist/index.cjs', format: 'cjs', sourcemap, exports: 'named' },
  ],
};

const cli = {
  input: 'src/hosts/cli/main.ts',
  external,
  plugins: [js(), pruneStaleChunks('cli')],
  // Chunks, not inlined dynamic imports: a command loads only what it uses (`status` needs
  // neither pi's binding and typebox nor the visualiser's layout engine).
  output: { dir: 'dist', format: 'es', sourcemap, entryFileNames: 'cli.mjs', chunkFileNames: 'cli/[name]-[hash].mjs', banner: (chunk) => (chunk.isEntry ? '#!/usr/bin/env node' : '') },
};

// The pi extension is self-contained: `pi install <dir>` (a path or git install) runs no
// `npm install`, so every runtime dependency is inlined. Only what pi itself provides stays
// outside: typebox (pi aliases it to its own copy) and the pi packages (type imports only).
// The lazy imports stay separate chunks: pi loads the entry at start-up, and the runtime
// (xstate, the queue, the server client) only when a session starts.
const hostProvided = (id) => id.startsWith('node:') || builtinModules.includes(id) || /^(typebox|@mariozechner\/|@earendil-works\/)/.test(id);
const piExtension = {
  // `serve`: the embedded server beside the extension (`node dist/pi/serve.mjs`), self-contained too.
  input: { index: 'src/hosts/pi/extension.ts', serve: 'src/hosts/pi/serve.ts' },
  external: hostProvided,
  plugins: [nodeResolve({ exportConditions: ['node', 'import', 'default'], preferBuiltins: true }), commonjs(), json(), js(), pruneStaleChunks('')],
  // PI_OUT: the pack test and the load benchmark build the entry into a scratch dir.
  output: { dir: process.env.PI_OUT ?? 'dist/pi', format: 'es', sourcemap, entryFileNames: '[name].mjs', chunkFileNames: '[name]-[hash].mjs' },
  onwarn: (warning, warn) => {
    // io-ts and fp-ts use `this` at module top level in their CJS builds; harmless once wrapped.
    if (warning.code === 'THIS_IS_UNDEFINED' || warning.code === 'CIRCULAR_DEPENDENCY') return;
    warn(warning);
  },
};

const types = {
  input: 'src/index.ts',
  external,
  plugins: [dts()],
  output: [{ file: 'dist/index.d.mts' }, { file: 'dist/index.d.cts' }],
};

const piOnly = process.env.PI_ONLY === 'true';
// `npm start` runs the CLI alone: building the library and the self-contained pi bundle too
// took it over 30 s of CPU before its first line.
const cliOnly = process.env.CLI_ONLY === 'true';

export default piOnly ? [piExtension] : cliOnly ? [cli] : jsOnly ? [library, cli, piExtension] : [library, cli, piExtension, types];
