import { builtinModules } from 'node:module';
import { readFileSync } from 'node:fs';
import esbuild from 'rollup-plugin-esbuild';
import { dts } from 'rollup-plugin-dts';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const deps = [
  ...Object.keys(pkg.dependencies ?? {}),
  ...Object.keys(pkg.peerDependencies ?? {}),
  ...builtinModules,
];
// Dependencies stay external: the package is a library, and pi shares its own copies.
const external = (id) => id.startsWith('node:') || deps.some((d) => id === d || id.startsWith(`${d}/`));
const js = () => esbuild({ target: 'node20', sourceMap: true });
const jsOnly = process.env.JS_ONLY === 'true';

const library = {
  input: 'src/index.ts',
  external,
  plugins: [js()],
  output: [
    { file: 'dist/index.mjs', format: 'es', sourcemap: true },
    { file: 'dist/index.cjs', format: 'cjs', sourcemap: true, exports: 'named' },
  ],
};

const cli = {
  input: 'src/hosts/cli/main.ts',
  external,
  plugins: [js()],
  output: { file: 'dist/cli.mjs', format: 'es', sourcemap: true, inlineDynamicImports: true, banner: '#!/usr/bin/env node' },
};

// The pi extension keeps its lazy imports as separate chunks: pi loads the entry at start-up,
// and the runtime (got, xstate, the server client) only when a session starts.
const piExtension = {
  input: { index: 'src/hosts/pi/extension.ts' },
  external,
  plugins: [js()],
  output: { dir: 'dist/pi', format: 'es', sourcemap: true, entryFileNames: '[name].mjs', chunkFileNames: '[name]-[hash].mjs' },
};

const types = {
  input: 'src/index.ts',
  external,
  plugins: [dts()],
  output: [{ file: 'dist/index.d.mts' }, { file: 'dist/index.d.cts' }],
};

export default jsOnly ? [library, cli, piExtension] : [library, cli, piExtension, types];
