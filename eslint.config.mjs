import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/', '.build/', 'coverage/', 'node_modules/', 'test-artifacts/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' },
      ],
    },
  },
  {
    // The pi host loads an extension through its default export; that file alone may have one.
    files: ['src/hosts/pi/extension.ts', '*.config.*', 'test/fixtures/**', 'fixtures/pi/**'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    // The extension runs in two pi lines (@mariozechner 0.73, @earendil-works 0.74+): it may use
    // their types, never their runtime modules, so one build loads in both.
    files: ['src/hosts/pi/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@mariozechner/*', '@earendil-works/*'],
              allowTypeImports: true,
              message: 'The pi extension imports no pi runtime module (type imports only), so it loads in both pi lines.',
            },
          ],
        },
      ],
    },
  },
  {
    // Machines are pure: they import only xstate, immer, io-ts, fp-ts, their own gate, machines/shared
    // (the machine helpers) and src/codecs (the codec kernel every layer shares).
    files: ['src/machines/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: String.raw`^(?!(?:xstate|immer|io-ts|fp-ts)(?:/|$)|\./|\.\./shared/|\.\./\.\./codecs/)`,
              message: 'Machines import only xstate, immer, io-ts, fp-ts, their own gate, machines/shared and src/codecs.',
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', { name: 'Date', message: 'Time comes in as data.' }],
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'Randomness comes in as data.' }],
    },
  },
  {
    // Effects act over ports: never node's I/O, never an adapter, server or host.
    files: ['src/effects/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: String.raw`^(?:node:|(?:fs|fs/promises|path|os|crypto|child_process|lowdb)$)`, message: 'Effects do I/O through ports (src/effects/ports).' },
            { group: ['**/adapters/**', '**/hosts/**', '**/server/**'], message: 'Effects import ports, machines and the kernel (ports speak src/wire), never adapters, the server or hosts.' },
          ],
        },
      ],
      // Repeating work runs on the clock the effect was given, so a test clock drives it too.
      'no-restricted-globals': ['error', { name: 'setInterval', message: 'Repeat through the Clock port: every(clock, ms, fire) in src/effects/ports/clock.ts.' }],
    },
  },
  {
    // Adapters implement ports: they never import effects (ports only), hosts, or another
    // backend's internals (adapters/fs holds the file primitives every backend shares).
    files: ['src/adapters/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: String.raw`effects/(?!ports/)`, message: 'Adapters import ports only, never effects.' },
            { regex: String.raw`^\.\./(?!fs/|\.\./)[^/]+/`, message: "Adapters never import another backend's internals (only adapters/fs)." },
            { group: ['**/hosts/**', '**/tools/**', '**/viz/**', '**/server/**'], message: 'Adapters import ports, src/codecs and config only.' },
          ],
        },
      ],
    },
  },
  {
    // The embedded server stands alone: it speaks the wire schema and the shared codecs (src/codecs),
    // never the client adapter, the effects (its clock is its own, src/server/clock.ts), config,
    // the hosts or the tools. The exceptions are two file primitives the queue and the server
    // share: the directory lock, which issue 10 asks them to share (adapters/fs/dirLock.js), and
    // the chunked line reader both start-ups read their files with (adapters/fs/fileLines.js).
    files: ['src/server/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+adapters/(?!fs/(dirLock|fileLines)\\.js$)|^(\\.\\./)+(hosts|tools|viz|effects|config|machines)/',
              message: 'src/server imports only src/wire, src/codecs and the file primitives it shares with the queue (adapters/fs/dirLock.js, adapters/fs/fileLines.js).',
            },
          ],
        },
      ],
    },
  },
  {
    // Only hosts build adapters (src/index.ts re-exports the public ones). Config loading reads
    // its files through the no-follow, size-capped primitives of adapters/fs (state-file safety).
    files: ['src/tools/**/*.ts', 'src/viz/**/*.ts', 'src/config/**/*.ts', 'src/wire/**/*.ts'],
    ignores: ['src/config/load.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/adapters/**', '**/hosts/**'], message: 'Only hosts build adapters; take a port instead.' }] },
      ],
    },
  },
  {
    // The wire schema is codecs only.
    files: ['src/wire/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['node:*', '**/adapters/**', '**/effects/**', '**/server/**', '**/hosts/**', '**/tools/**'], message: 'src/wire holds codecs only.' }] },
      ],
    },
  },
  {
    // The codec kernel every layer shares: io-ts and fp-ts only, so any layer may import it.
    files: ['src/codecs/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: String.raw`^(?!(?:io-ts|fp-ts)(?:/|$)|\./)`, message: 'src/codecs imports only io-ts, fp-ts and its own files.' }] },
      ],
    },
  },
);
