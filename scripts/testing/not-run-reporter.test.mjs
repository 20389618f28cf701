import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  notRunFileOf,
  notRunReporter,
  pgliteOnlyNotRun,
  postgresHalfNotRun,
} from './not-run-reporter.mjs';

const folders = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** Runs the reporter's hooks as vitest does, on a made-up config. */
function runReporter(options, config) {
  const reporter = notRunReporter(options);
  reporter.onInit({ config });
  reporter.onTestRunEnd([], [], 'passed');
}

describe('notRunReporter', () => {
  it("writes what was left out beside the run's JSON report, the one a CLI flag names too", () => {
    const root = mkdtempSync(join(tmpdir(), 'not-run-'));
    folders.push(root);
    const parts = postgresHalfNotRun(undefined);
    runReporter({ parts }, { root, outputFile: undefined });
    expect(JSON.parse(readFileSync(join(root, 'test-results.not-run.json'), 'utf8'))).toEqual({
      notRun: [{ part: 'the PostgreSQL half', why: 'FOLLOWUP_TEST_DATABASE_URL is unset' }],
    });
    // test:node22 runs vitest with --outputFile.json=test-results.node22.json.
    runReporter({ parts: [] }, { root, outputFile: { json: 'test-results.node22.json' } });
    expect(
      JSON.parse(readFileSync(join(root, 'test-results.node22.not-run.json'), 'utf8')),
    ).toEqual({ notRun: [] });
  });

  it('names nothing left out when the database is given', () => {
    expect(postgresHalfNotRun('postgres://127.0.0.1/x')).toEqual([]);
    expect(notRunFileOf('test-results.json')).toBe('test-results.not-run.json');
  });

  it('names the PostgreSQL run of the files that run on PGlite only, whenever there are some', () => {
    expect(pgliteOnlyNotRun(47)).toEqual([
      {
        part: 'the PostgreSQL run of 47 files that run on PGlite only',
        why: 'the storage driver cannot change what they check (PGLITE_ONLY in vitest.config.ts)',
      },
    ]);
    expect(pgliteOnlyNotRun(0)).toEqual([]);
  });
});
