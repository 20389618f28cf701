import { readFileSync } from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';
import { browserTestsNotRun, notRunReporter } from '../../scripts/testing/not-run-reporter.mjs';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

// test:node22 runs the suite again, on Node 22, for what the code does on that Node. Two parts
// cannot change with it, so `test` runs them once and test:node22 says it left them out: the
// type tests (*.test-d.ts: what TypeScript infers) and the browser test (the SDK in Chromium).
const onNode22 = process.env.npm_lifecycle_event === 'test:node22';
const leftOutOnNode22 = onNode22
  ? [
      { part: 'the type tests', why: 'types do not depend on Node: the test task checks them' },
      {
        part: 'the browser test',
        why: 'the SDK runs in Chromium there, not on Node: the test task runs it',
      },
    ]
  : [];

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
    exclude: [...configDefaults.exclude, ...(onNode22 ? ['test/browser.test.ts'] : [])],
    // The report npm test counts; test:node22 names its own with --outputFile.json.
    // What this run left out, and why, beside the report, for npm test's summary to name.
    reporters: [
      'default',
      'json',
      notRunReporter({
        parts: [...(onNode22 ? [] : browserTestsNotRun()), ...leftOutOnNode22],
      }),
    ],
    outputFile: { json: 'test-results.json' },
    // test/memory.test.ts forces garbage collections to check that a walk lets go of its pages.
    execArgv: ['--expose-gc'],
    typecheck: {
      enabled: !onNode22,
      include: ['src/**/*.test-d.ts', 'test/**/*.test-d.ts'],
      // The type tests and what they import, not every test file: the typecheck task checks the
      // whole package (tsconfig.json) in the same run, and this one no longer does it twice.
      tsconfig: 'tsconfig.type-tests.json',
    },
  },
});
