import { defineConfig } from 'vitest/config';
import { browserTestsNotRun, notRunReporter } from '../../scripts/testing/not-run-reporter.mjs';

export default defineConfig({
  test: {
    // A guard against a hung test, not a measure of speed: on a loaded machine (CI, or many test
    // runs sharing two cores) a walk of 10,000 items over loopback takes well over vitest's
    // default 5 s. Every time-dependent behaviour under test runs on an injected clock instead.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The report npm test counts; test:node22 names its own with --outputFile.json.
    // What this run left out, and why, beside the report, for npm test's summary to name.
    reporters: ['default', 'json', notRunReporter({ parts: browserTestsNotRun() })],
    outputFile: { json: 'test-results.json' },
  },
});
