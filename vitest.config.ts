import { defineConfig } from 'vitest/config';

// Three suites, named after what they need:
// - unit: pure code, no I/O.
// - embedded: real files, real HTTP on ephemeral ports, child processes; nothing to install.
// - integration: the real servers of scripts/services.sh (FerretDB, Kafka) and EventStoreDB when EVENTSTORE_URL is set.
export default defineConfig({
  test: {
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
          exclude: ['test/integration/**'],
          testTimeout: 30_000,
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
    ],
  },
});
