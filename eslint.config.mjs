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
    // Machines are pure: no I/O, no adapters, no host, no clock.
    files: ['src/machines/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*', 'fs', 'path', 'got', 'lowdb', '@mariozechner/*'], message: 'Machines are pure.' },
            { group: ['**/adapters/**', '**/effects/**', '**/server/**', '**/hosts/**', '**/wire/**'], message: 'Machines import nothing from effects, adapters, server, wire or hosts.' },
          ],
        },
      ],
      'no-restricted-globals': ['error', { name: 'Date', message: 'Time comes in as data.' }],
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'Randomness comes in as data.' }],
    },
  },
);
