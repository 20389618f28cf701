import { defineConfig } from 'vitest/config';
import { browserTestsNotRun, notRunReporter } from '../../scripts/testing/not-run-reporter.mjs';

export default defineConfig({
  test: {
    include: ['src/**/*.test.js'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    // What this run left out, and why, beside the report, for npm test's summary to name.
    reporters: [
      'default',
      ['json', { outputFile: 'test-results.json' }],
      notRunReporter({ parts: browserTestsNotRun() }),
    ],
  },
});
