import { defineConfig } from 'vitest/config';
import { notRunReporter, postgresHalfNotRun } from '../../scripts/testing/not-run-reporter.mjs';

export default defineConfig({
  test: {
    include: ['src/**/*.test.js'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // What this run left out, and why, beside the report, for npm test's summary to name.
    reporters: [
      'default',
      ['json', { outputFile: 'test-results.json' }],
      notRunReporter({ parts: postgresHalfNotRun(process.env.FOLLOWUP_TEST_DATABASE_URL) }),
    ],
  },
});
