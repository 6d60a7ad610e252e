// Lint is part of `npm test`; it stays on rules that need no type information so it runs in seconds.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '.data/**', 'packages/code-intel/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'Name public exports explicitly; no `export *`.' },
        { selector: "CallExpression[callee.property.name='only'][callee.object.name=/^(it|test|describe)$/]", message: 'A focused test hides the rest of the suite.' },
      ],
      // Configuration is read once, by each service's env.ts.
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration through env.ts.' }],
    },
  },
  {
    // The dashboard's scripts run in the browser.
    files: ['services/orchestrator/dashboard/**/*.js'],
    languageOptions: { globals: globals.browser },
  },
  {
    // The image's own scripts (its HEALTHCHECK) run in the container's Node, reading the container's environment.
    files: ['infra/**/*.mjs'],
    languageOptions: { globals: globals.node },
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['**/env.ts', '**/testing.ts', '**/testing/**', 'scripts/**', '**/*.test.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
