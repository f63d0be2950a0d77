// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The project's top-level folders: what the boundaries below are drawn between. */
const topLevelFolders = [
  'domain',
  'catalog',
  'identity',
  'webhooks',
  'assembly',
  'projections',
  'command-api',
  'query-api',
  'webhook-dispatcher',
  'infrastructure',
  'openapi',
  'embedded',
  'cli',
  'bench',
  'scripts',
  'test',
];
/** Import patterns for every top-level folder but these: the ones a folder may not reach. */
function outside(...allowed) {
  return topLevelFolders.filter((folder) => !allowed.includes(folder)).map((folder) => `**/${folder}/**`);
}

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
    // A file of domain/<feature>/ that climbs two levels has left domain/, unless it comes back into it.
    // (By path, not by folder name: domain/identity/ shares its name with the top-level identity/.)
    regex: '^\\.\\./\\.\\./(?!domain/)',
    message: 'domain/ depends on nothing else in the project.',
  },
];

const servicesApart =
  'The services never import each other: share through domain/, infrastructure/ or the features’ stores.';

/**
 * A service's boundaries: its own (`patterns`) for every file, and for every file but its composition root
 * (`root`), assembly/ too: only a root takes its stores from the record of an adapter family.
 */
function serviceBoundaries(folder, root, patterns) {
  return [
    {
      files: [`${folder}/**/*.ts`],
      ignores: [root],
      patterns: [
        ...patterns,
        {
          group: ['**/assembly/**'],
          message: 'Only a composition root (start-*.ts, embedded/, cli/) takes stores from assembly/.',
        },
      ],
    },
    { files: [root], patterns },
  ];
}

/**
 * The boundaries between the card's folders (ARCHITECTURE.md): each entry says which of the project's
 * folders the files matched may import from. Features live inside these folders; what they share is in
 * infrastructure/ (mechanisms, no feature) and domain/ (the decisions, no I/O).
 */
export const folderBoundaries = [
  {
    // A feature's port and its adapters (the catalogue, users, webhook deliveries), used by every service.
    files: ['catalog/**/*.ts', 'identity/**/*.ts', 'webhooks/**/*.ts'],
    patterns: [
      {
        group: outside('domain', 'infrastructure', 'catalog', 'identity', 'webhooks'),
        message: 'A feature’s stores read only domain/ and infrastructure/, and each other.',
      },
      { group: ['**/infrastructure/http/**'], message: 'A feature’s stores know no HTTP.' },
    ],
  },
  {
    // The read side's logic: events in, documents out. No HTTP, no sibling service.
    files: ['projections/**/*.ts'],
    ignores: ['projections/main.ts', 'projections/start-projections.ts', 'projections/config.ts'],
    patterns: [
      {
        group: outside('domain', 'infrastructure', 'projections', 'catalog', 'identity', 'webhooks'),
        message: 'projections/ reads only domain/, infrastructure/ and the features’ stores.',
      },
      {
        group: ['**/infrastructure/http/**'],
        message: "projections/ knows no HTTP: the API resource is the query side's.",
      },
    ],
  },
  {
    // The processes' composition root of projections/ also serves /health and /metrics.
    files: ['projections/main.ts', 'projections/start-projections.ts', 'projections/config.ts'],
    patterns: [
      {
        group: outside(
          'domain',
          'infrastructure',
          'projections',
          'catalog',
          'identity',
          'webhooks',
          'assembly',
        ),
        message: 'projections/ reads only domain/, infrastructure/ and the features’ stores.',
      },
    ],
  },
  ...serviceBoundaries('command-api', 'command-api/start-command-api.ts', [
    {
      group: ['**/projections/**'],
      message:
        'The write side never imports the read side: what both use lives beneath both (domain/, the features’ stores).',
    },
    {
      group: ['**/query-api/**', '**/webhook-dispatcher/**', '**/embedded/**'],
      message: servicesApart,
    },
  ]),
  ...serviceBoundaries('query-api', 'query-api/start-query-api.ts', [
    { group: ['**/command-api/**', '**/webhook-dispatcher/**', '**/embedded/**'], message: servicesApart },
  ]),
  ...serviceBoundaries('webhook-dispatcher', 'webhook-dispatcher/start-dispatcher-process.ts', [
    { group: ['**/command-api/**', '**/query-api/**', '**/embedded/**'], message: servicesApart },
  ]),
  {
    // Mechanisms only: the kernel's shared types in domain/shared, and nothing of any feature.
    files: ['infrastructure/**/*.ts'],
    patterns: [
      { group: outside('infrastructure', 'domain'), message: 'infrastructure/ knows no feature.' },
      {
        regex: '(^|/)domain/(?!shared/)',
        message: 'infrastructure/ knows no feature: only the shared kernel of domain/shared.',
      },
    ],
  },
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'data/**',
      'coverage/**',
      '.venv-fuzz/**',
      '.venv-clients/**',
      '.venv-integrators/**',
      '.integrators/**',
      '.probe/**',
    ],
  },
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
  ...folderBoundaries.map(({ files, ignores, patterns }) => ({
    files,
    ...(ignores ? { ignores } : {}),
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(\\.\\./){4,}', message: 'No deep relative imports.' }, ...patterns] },
      ],
    },
  })),
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
