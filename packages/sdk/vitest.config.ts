import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { browserTestsNotRun, notRunReporter } from '../../scripts/testing/not-run-reporter.mjs';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

export default defineConfig({
  // The version the X-FollowUp-Client header reports, as the build defines it.
  define: { __FOLLOWUP_SDK_VERSION__: JSON.stringify(version) },
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
    // test/memory.test.ts forces garbage collections to check that a walk lets go of its pages.
    execArgv: ['--expose-gc'],
    typecheck: {
      enabled: true,
      include: ['src/**/*.test-d.ts', 'test/**/*.test-d.ts'],
      tsconfig: 'tsconfig.json',
    },
  },
});
