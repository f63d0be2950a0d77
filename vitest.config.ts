import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The suites, named after what they need:
// - unit: pure code, no I/O.
// - embedded: real files, real HTTP on ephemeral ports, child processes; nothing to install. Among them
//   test/docs/readme.e2e.spec.ts runs README.md's shell blocks (bash, curl and jq; `npm run test:readme`).
//   Suites written as API specifications send their requests in-process, without a socket, unless
//   API_DRIVER=url (test/support/api-driver.ts; the distributed project always sends them to the URL).
// - integration: the real servers of scripts/services.sh (FerretDB, Kafka) and EventStoreDB when EVENTSTORE_URL is set.
// - console: the console in headless Chromium (test/console/console.e2e.spec.ts), every role and view at
//   two widths; slow, so outside `npm test`: `npm run test:console` (.ci/run runs it after npm test).
// - clients: standard OAuth 2 client libraries (oauth4webapi) against the token endpoints of the embedded
//   default (test/clients); outside `npm test`: `npm run test:clients`, which runs authlib (Python) too.
// - faults: the embedded default under crashes, full and read-only disks, hostile webhook receivers and
//   overload (test/faults); slow, so outside `npm test`: `npm run test:faults`.
// - distributed: the HTTP suites of the embedded project again, against the distributed mode's four processes
//   on those servers (test/support/distributed-service.ts), plus the distributed mode's own fault tests.
/** The console walked through in headless Chromium: a project of its own (`npm run test:console`). */
const consoleInBrowser = 'test/console/console.e2e.spec.ts';

/** The HTTP suites that run against both the embedded default and the distributed mode. */
const httpSuites = [
  'test/orders/*.e2e.spec.ts',
  'test/webhooks/*.e2e.spec.ts',
  'test/identity/*.e2e.spec.ts',
  'test/catalog/*.e2e.spec.ts',
  'test/openapi/*.e2e.spec.ts',
  'test/robustness/*.e2e.spec.ts',
  'test/console/*.e2e.spec.ts',
  // Free text and sealed fields (the erasure itself has its own distributed test, test/distributed/).
  'test/personal-data/free-text.e2e.spec.ts',
];

export default defineConfig({
  test: {
    // Vitest's default, one core less than the machine has, is a single worker on 2 cores: the embedded
    // tier's files, which mostly wait on sockets, child processes and disks, would run one at a time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default', './test/support/plain-summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.unit.spec.ts'],
          exclude: ['test/integration/**'],
        },
      },
      {
        test: {
          name: 'embedded',
          include: ['test/**/*.int.spec.ts', 'test/**/*.e2e.spec.ts'],
          exclude: [
            'test/integration/**',
            'test/distributed/**',
            'test/faults/**',
            'test/clients/**',
            consoleInBrowser,
          ],
          setupFiles: ['test/support/contract-setup.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'console',
          include: [consoleInBrowser],
          setupFiles: ['test/support/contract-setup.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'clients',
          include: ['test/clients/**/*.spec.ts'],
          setupFiles: ['test/support/contract-setup.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'faults',
          include: ['test/faults/**/*.spec.ts'],
          setupFiles: ['test/support/contract-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          // The fault suite on the stand of hosts (scripts/stand.sh): `npm run test:faults:hosts`.
          name: 'hosts',
          include: ['test/hosts/**/*.hosts.spec.ts'],
          testTimeout: 400_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.spec.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'distributed',
          include: [...httpSuites, 'test/distributed/**/*.spec.ts'],
          env: { TEST_TARGET: 'distributed' },
          setupFiles: ['test/support/contract-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
