import { defineConfig } from 'vitest/config';
import {
  browserTestsNotRun,
  notRunReporter,
  postgresHalfNotRun,
} from '../../scripts/testing/not-run-reporter.mjs';

// The whole suite runs once per storage driver: always on embedded PGlite (in memory), and on
// PostgreSQL too when FOLLOWUP_TEST_DATABASE_URL is set (CI sets it through
// scripts/start-test-postgres.sh). Each test file opens one database and truncates it between
// tests: a fresh PGlite takes seconds, so never one per test.
const drivers = process.env.FOLLOWUP_TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
if (process.env.CI && process.env.CI !== 'false' && drivers.length === 1) {
  throw new Error(
    'CI runs the server suite on PostgreSQL too: set FOLLOWUP_TEST_DATABASE_URL ' +
      '(packages/server/scripts/start-test-postgres.sh does).',
  );
}

export default defineConfig({
  test: {
    // What this run left out, and why, beside the report, for npm test's summary to name.
    reporters: [
      'default',
      ['json', { outputFile: 'test-results.json' }],
      notRunReporter({
        parts: [
          ...postgresHalfNotRun(process.env.FOLLOWUP_TEST_DATABASE_URL),
          ...browserTestsNotRun(),
        ],
      }),
    ],
    // A PGlite instance costs hundreds of MB and the machine is shared: two files at a time.
    maxWorkers: 2,
    // One migrated PGlite for the run; each file opens a copy (test/support/pglite-template.ts).
    globalSetup: ['test/support/pglite-template.global.ts'],
    // Guards against a hung test, not measures of speed. Many tests start real things (PGlite
    // on disk, whole servers, Chromium): at load 20 on two cores opening an on-disk PGlite twice
    // took 38 s and `start` plus an operator command 49 s, past the 30 s guard this used to be.
    // Every time-dependent behaviour under test runs on an injected clock instead.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    projects: drivers.map((driver) => ({
      extends: true,
      test: {
        name: driver,
        include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
        env: { FOLLOWUP_TEST_DRIVER: driver },
      },
    })),
  },
});
