// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Everything the domain must never reach for: it stays pure, so time, ids and I/O come in from outside. */
export const domainForbiddenImports = [
  { group: ['node:*'], message: 'domain/ is pure: no Node built-ins (I/O, crypto, time) in the domain.' },
  {
    group: [
      'express',
      'mongodb',
      'kafkajs',
      '@eventstore/*',
      'pino',
      'jsonwebtoken',
      'fs',
      'http',
      'https',
      'net',
      'crypto',
    ],
    message:
      'domain/ is pure: I/O and frameworks belong in the services and infrastructure/ (zod, a pure validation library, describes its events).',
  },
  {
    group: [
      '**/infrastructure/**',
      '**/command-api/**',
      '**/query-api/**',
      '**/projections/**',
      '**/webhook-dispatcher/**',
      '**/embedded/**',
    ],
    message: 'domain/ depends on nothing else in the project.',
  },
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'coverage/**', '.venv-fuzz/**', '.probe/**'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: 'ThrowStatement > Literal', message: 'Throw an Error, never a string.' },
      ],
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(\\.\\./){4,}', message: 'No deep relative imports.' }] },
      ],
    },
  },
  {
    // The console's browser modules (plain JavaScript, run as they are): tsc checks their names and
    // types with the DOM's (query-api/console/app/tsconfig.json), so no-undef would only repeat it.
    files: ['query-api/console/app/**/*.js'],
    languageOptions: { sourceType: 'module' },
    rules: { 'no-undef': 'off' },
  },
  {
    files: ['domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: domainForbiddenImports }],
      'no-restricted-globals': [
        'error',
        { name: 'Date', message: 'Time comes in from outside the domain.' },
        { name: 'crypto', message: 'Ids come in from outside the domain.' },
        { name: 'process', message: 'Configuration comes in from outside the domain.' },
        { name: 'fetch', message: 'domain/ does no I/O.' },
      ],
    },
  },
);
