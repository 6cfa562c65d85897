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

const entries = [
  { input: 'src/cli/main.ts', file: 'dist/cli.mjs', banner: '#!/usr/bin/env node' },
  { input: 'src/adapters/pi/extension.ts', file: 'dist/pi-extension.mjs' },
].map(({ input, file, banner }) => ({
  input,
  external,
  plugins: [js()],
  output: { file, format: 'es', sourcemap: true, inlineDynamicImports: true, ...(banner ? { banner } : {}) },
}));

const types = {
  input: 'src/index.ts',
  external,
  plugins: [dts()],
  output: [{ file: 'dist/index.d.mts' }, { file: 'dist/index.d.cts' }],
};

export default jsOnly ? [library, ...entries] : [library, ...entries, types];
