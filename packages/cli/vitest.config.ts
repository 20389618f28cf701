import { defineConfig } from 'vitest/config';
import { notRunReporter } from '../../scripts/testing/not-run-reporter.mjs';

export default defineConfig({
  test: {
    // Guards against a hung test, not measures of speed: the tests start real servers (the
    // reference server on an in-memory PGlite, and receivers on loopback ports), which on a
    // loaded machine take seconds. Every time-dependent behaviour runs on an injected clock.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // A test server holds a PGlite instance: two files at a time, as the server's own suite.
    maxWorkers: 2,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The report npm test counts, and what this run left out (nothing, for now) beside it, for
    // npm test's summary to name.
    reporters: [
      'default',
      ['json', { outputFile: 'test-results.json' }],
      notRunReporter({ parts: [] }),
    ],
  },
});
