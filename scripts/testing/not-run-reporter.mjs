// What a test run left out, and why, written beside its vitest JSON report so that the summary
// of `npm test` (test-summary.mjs) names it: the server's PostgreSQL half when
// FOLLOWUP_TEST_DATABASE_URL is unset, the PostgreSQL run of the server's files that run on
// PGlite only, the browser tests when there is no Chromium. A vitest
// report alone cannot say so: a project that is not configured (the PostgreSQL half) counts
// nothing at all, and a skipped test does not say why. The vitest config that makes the choice
// declares it here, so that the reason comes from the code that decided.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { chromiumAvailable, chromiumPath } from './chromium.mjs';

/**
 * @typedef {object} NotRunPart A part of a suite that this run left out.
 * @property {string} part what did not run, e.g. `the PostgreSQL half`
 * @property {string} why e.g. `FOLLOWUP_TEST_DATABASE_URL is unset`
 */

/**
 * The file that records what a run left out, beside its JSON report:
 * `test-results.not-run.json` beside `test-results.json`, `test-results.node22.not-run.json`
 * beside `test-results.node22.json`.
 *
 * @param {string} reportFile the vitest JSON report's path
 * @returns {string}
 */
export function notRunFileOf(reportFile) {
  return reportFile.replace(/\.json$/, '.not-run.json');
}

/**
 * A vitest reporter that writes `parts` (an empty list when everything ran) beside the run's
 * JSON report when the run ends. The report's path is the config's `outputFile.json` when set
 * (as `--outputFile.json=test-results.node22.json` sets it), else `reportFile`.
 *
 * @param {{ parts: NotRunPart[], reportFile?: string }} options
 * @returns {import('vitest/node').Reporter}
 */
export function notRunReporter({ parts, reportFile = 'test-results.json' }) {
  /** @type {string | undefined} */
  let file;
  return {
    onInit(vitest) {
      const configured = vitest.config.outputFile;
      const json = typeof configured === 'object' ? configured.json : undefined;
      file = resolve(vitest.config.root, notRunFileOf(json ?? reportFile));
    },
    onTestRunEnd() {
      if (file === undefined) return;
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify({ notRun: parts })}\n`);
    },
  };
}

/**
 * The browser tests' part, when this machine has no Chromium (in CI a missing Chromium is an
 * error instead, from `chromiumAvailable`).
 *
 * @returns {NotRunPart[]}
 */
export function browserTestsNotRun() {
  return chromiumAvailable()
    ? []
    : [{ part: 'the browser tests', why: `no Chromium at ${chromiumPath}` }];
}

/**
 * The PostgreSQL half of a suite that runs on both databases, when it has no database to run on.
 *
 * @param {string | undefined} databaseUrl FOLLOWUP_TEST_DATABASE_URL
 * @returns {NotRunPart[]}
 */
export function postgresHalfNotRun(databaseUrl) {
  return databaseUrl
    ? []
    : [{ part: 'the PostgreSQL half', why: 'FOLLOWUP_TEST_DATABASE_URL is unset' }];
}

/**
 * The PostgreSQL run of the test files that a suite running on both databases runs once, on
 * PGlite, because the storage driver cannot change what they check (the server's `PGLITE_ONLY`
 * in its vitest.config.ts). Always named, so that the summary never counts a PostgreSQL run of
 * them that did not happen.
 *
 * @param {number} files how many files run on PGlite only
 * @returns {NotRunPart[]}
 */
export function pgliteOnlyNotRun(files) {
  return files > 0
    ? [
        {
          part: `the PostgreSQL run of ${files} files that run on PGlite only`,
          why: 'the storage driver cannot change what they check (PGLITE_ONLY in vitest.config.ts)',
        },
      ]
    : [];
}
