import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends every run with one plain line, `tests: N passed, N failed, N skipped`, which CI systems that do not
 * know vitest's own summary can read. Failed also counts errors raised outside any test.
 */
export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const counts = { passed: 0, failed: unhandledErrors.length, skipped: 0 };
    for (const module of testModules) {
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) counts.failed++;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
    }
    process.stdout.write(
      `\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`,
    );
  }
}
